-- Reconciliation (issue 26): the engine's connector attempts of each closed window compared with the
-- bank's report. A run owns one window; the unique window_start lets one process only reconcile it
-- (every run starts where the latest one ended, so windows never overlap). A difference is recorded
-- once per key and kind, whatever run or process finds it again.
CREATE TABLE reconciliation_runs (
  id               text PRIMARY KEY,                 -- rcn_…
  window_start     timestamptz NOT NULL,
  window_end       timestamptz NOT NULL CHECK (window_end > window_start),
  status           text NOT NULL CHECK (status IN ('running', 'completed')),
  lease_until      timestamptz,                      -- a running run whose lease ended is taken over
  claimed_by       text,
  tries            int NOT NULL DEFAULT 1,
  last_error       text,
  attempts_checked int NOT NULL DEFAULT 0,
  bank_operations  int NOT NULL DEFAULT 0,
  differences      int NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz
);
CREATE UNIQUE INDEX reconciliation_runs_window ON reconciliation_runs (window_start);
CREATE INDEX reconciliation_runs_end ON reconciliation_runs (window_end);

CREATE TABLE reconciliation_differences (
  id              text PRIMARY KEY,                  -- rcd_…
  run_id          text NOT NULL REFERENCES reconciliation_runs (id),
  idempotency_key text NOT NULL,                     -- the key the engine sent (an attempt id), or the bank's own
  kind            text NOT NULL CHECK (kind IN ('missing_in_engine', 'missing_at_bank', 'amount_mismatch', 'outcome_mismatch')),
  connector       text NOT NULL,
  aggregate_id    text,                              -- the engine's payment or payout, when it has the key
  engine          jsonb,                             -- the engine's side: kind, amount, currency, outcome, at
  bank            jsonb,                             -- the bank's side
  status          text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'ignored')),
  note            text,
  status_changed_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX reconciliation_differences_once ON reconciliation_differences (idempotency_key, kind);
CREATE INDEX reconciliation_differences_run ON reconciliation_differences (run_id, created_at);
CREATE INDEX reconciliation_differences_open ON reconciliation_differences (created_at) WHERE status = 'open';

-- Windows are read by time on both sides.
CREATE INDEX IF NOT EXISTS connector_attempts_created ON connector_attempts (created_at);
CREATE INDEX IF NOT EXISTS sandbox_ledger_created ON sandbox_ledger (created_at);
