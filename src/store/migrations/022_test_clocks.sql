-- Test clocks (issue 26): a test-mode clock a merchant's developer moves forward by hand. A payment
-- (merchant API payment, gateway session or direct payment), a link and a webhook delivery may be on
-- a clock (`test_clock_id`); every deadline of such a row is compared with the clock's frozen_time
-- instead of Postgres's now() (COALESCE in the one sweep query of each scheduler). Deleting a clock
-- detaches its objects (ON DELETE SET NULL): their deadlines run on Postgres's time from then on.
CREATE TABLE test_clocks (
  id          text PRIMARY KEY,
  merchant_id text NOT NULL REFERENCES merchants(id),
  name        text,
  frozen_time timestamptz NOT NULL,
  status      text NOT NULL CHECK (status IN ('ready', 'advancing')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX test_clocks_list ON test_clocks (merchant_id, created_at DESC, id DESC);
CREATE INDEX test_clocks_advancing ON test_clocks (id) WHERE status = 'advancing';
CREATE INDEX test_clocks_frozen ON test_clocks (frozen_time);

ALTER TABLE payments ADD COLUMN test_clock_id text REFERENCES test_clocks(id) ON DELETE SET NULL;
CREATE INDEX payments_test_clock ON payments (test_clock_id, expires_at) WHERE test_clock_id IS NOT NULL AND status IN ('pending', 'authorized');
ALTER TABLE links ADD COLUMN test_clock_id text REFERENCES test_clocks(id) ON DELETE SET NULL;
ALTER TABLE webhook_deliveries ADD COLUMN test_clock_id text REFERENCES test_clocks(id) ON DELETE SET NULL;
CREATE INDEX webhook_deliveries_test_clock ON webhook_deliveries (test_clock_id, next_attempt_at) WHERE test_clock_id IS NOT NULL AND status IN ('pending', 'delivering');
