// Structured logs. Secrets and card data are redacted by path before anything is written.
import { pino, type Logger } from 'pino';

export const REDACT_PATHS = [
  'authorization', 'headers.authorization', 'req.headers.authorization',
  'key', '*.key', 'secret', '*.secret', 'token', '*.token', 'adminToken', '*.adminToken',
  'password', '*.password', 'databaseUrl', '*.databaseUrl', 'redisUrl', '*.redisUrl',
  'card.number', '*.card.number', 'card.cvc', '*.card.cvc', 'number', 'cvc', '*.cvc',
  'cardFingerprintKey', '*.cardFingerprintKey',
];

export type { Logger };

export function createLogger(level: string, name = 'payments-engine'): Logger {
  return pino({
    name,
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
  });
}
