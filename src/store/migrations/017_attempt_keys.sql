-- Capture and cancel take an Idempotency-Key (issue 22): the key's record is the connector attempt it
-- started. `idempotency_scope` is the key with its merchant, mode and kind (capture or cancel); an
-- attempt the bank never received (abandoned) gives its key back, so the retry can start a new one.
ALTER TABLE connector_attempts ADD COLUMN IF NOT EXISTS idempotency_scope text;
ALTER TABLE connector_attempts ADD COLUMN IF NOT EXISTS request_hash text;
ALTER TABLE connector_attempts ADD COLUMN IF NOT EXISTS request_id text;
CREATE UNIQUE INDEX IF NOT EXISTS connector_attempts_idempotency ON connector_attempts (idempotency_scope)
  WHERE idempotency_scope IS NOT NULL AND status <> 'abandoned';
