-- Live server processes and a cluster epoch, so a process knows when it is the only writer and may
-- serve reads from memory (DESIGN invariant 7).
CREATE TABLE instances (
  id           text PRIMARY KEY,
  started_at   timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL,
  seen_epoch   bigint NOT NULL DEFAULT 0
);

CREATE TABLE cluster_epoch (
  one   boolean PRIMARY KEY DEFAULT true CHECK (one),
  epoch bigint NOT NULL
);
INSERT INTO cluster_epoch (one, epoch) VALUES (true, 0);
