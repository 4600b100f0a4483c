-- Gateway checkout sessions (issue 11): a session is a payment row (id cs_…, source 'gateway') so
-- that one version check orders every write of the session, its checkout and its payment. The
-- session's own options (webhook_url, success/cancel URLs, presentation settings) sit in one column.
-- Their events are the gateway API's (events.api = 'gateway').
ALTER TABLE payments ADD COLUMN session jsonb;
