// Package exports for embedding the engine and for merchants' receivers.
export { startServer, type RunningServer } from './server.js';
export { loadConfig, type Config } from './config.js';
export { ERRORS, type ErrorCode } from './errors.js';
export { verifyWebhook, generateTestHeader, WebhookVerificationError, type VerificationFailure } from './domain/webhook-signature.js';
