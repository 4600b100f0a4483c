-- Authorized payments (capture_method manual) whose hold has lapsed are voided by the expiry sweep:
-- an authorization sets expires_at to the end of its hold (AUTHORIZATION_WINDOW_SECONDS).
CREATE INDEX IF NOT EXISTS payments_authorization_due ON payments (expires_at) WHERE status = 'authorized';
