// Package exports for embedding the engine and for merchants' receivers.
export { startServer, type RunningServer } from './server.js';
export { loadConfig, type Config } from './config.js';
export { ERRORS, type ErrorCode } from './errors.js';
// The receivers' helper is packages/webhooks (also installable alone), reached by this package's own name.
export { verifyWebhook, verifyGatewayWebhook, generateTestHeader, WebhookVerificationError, type VerificationFailure } from 'payments-engine/webhooks';
