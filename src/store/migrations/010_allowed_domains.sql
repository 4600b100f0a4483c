-- The framing allowlist of a merchant (issue 10): the site origins that may put the hosted payment
-- page in a frame (CSP frame-ancestors) and receive its outcome by postMessage. Empty: no framing.
-- Validated by src/domain/frame-origins.ts before it is written; stored in canonical form.
ALTER TABLE merchants ADD COLUMN allowed_domains text[] NOT NULL DEFAULT '{}';
