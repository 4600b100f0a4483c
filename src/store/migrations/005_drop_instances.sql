-- Reads no longer come from memory (docs/decisions.md, "Every read from Postgres"): the process
-- membership tables of 002 have no reader left. A process of an older release still running during
-- a rolling upgrade finds its heartbeat failing, and a failed heartbeat makes it read Postgres.
DROP TABLE IF EXISTS instances;
DROP TABLE IF EXISTS cluster_epoch;
