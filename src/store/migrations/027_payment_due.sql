-- The expiry sweeps find their payments by `due_at`, not by `status` (docs/decisions.md, "A payment's
-- status in no index"). Postgres counts the columns of an index's predicate as indexed, so while
-- `status` was in the predicates of payments_due, payments_authorization_due and payments_test_clock,
-- no change of a payment's status could be a HOT update: each one wrote a new entry in every index of
-- the table. `due_at` is the moment a sweep must look at the payment, and NULL when none must: it is
-- the payment's expires_at while it is authorized, or pending with no connector attempt in flight
-- (that attempt decides first; its settlement sets due_at again if the payment is still pending).
-- An authorization keeps its deadline while a capture or a void is in flight (the sweep's claim
-- skips it), so that the capture's begin leaves every index alone. Every statement that writes
-- status, expires_at or pending_attempt sets it with payment_due_at, the one statement of the
-- rule. A refund's begin and settlement (succeeded → partially_refunded) and a card payment's
-- settlement (attempt in flight → succeeded) leave it NULL, so they can stay on their page.
CREATE FUNCTION payment_due_at(status text, expires_at timestamptz, pending_attempt text) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN status = 'authorized' OR (status = 'pending' AND pending_attempt IS NULL) THEN expires_at END $$;

ALTER TABLE payments ADD COLUMN due_at timestamptz;
UPDATE payments SET due_at = payment_due_at(status, expires_at, pending_attempt)
 WHERE status IN ('pending', 'authorized');
CREATE INDEX payments_due_at ON payments (due_at) WHERE due_at IS NOT NULL;
DROP INDEX IF EXISTS payments_due;
DROP INDEX IF EXISTS payments_authorization_due;
-- A test clock's advance is finished when none of its payments is open past the clock's time; the
-- statuses are checked on the clock's own rows (a clock holds a developer's handful of payments).
DROP INDEX IF EXISTS payments_test_clock;
CREATE INDEX payments_test_clock ON payments (test_clock_id, expires_at) WHERE test_clock_id IS NOT NULL;
