-- Wakes the webhook dispatchers of every process when deliveries are queued: one NOTIFY per
-- statement that inserted pending deliveries, sent by Postgres at commit (never for a rollback).
-- Statements that insert no delivery (most payment updates) send nothing.
CREATE FUNCTION webhook_deliveries_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM new_rows WHERE status = 'pending') THEN
    PERFORM pg_notify('webhook_due', '');
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_notify();
