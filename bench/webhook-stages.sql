-- Where a webhook delivery's time goes, stage by stage, in a database the webhook scenario kept
-- (BENCH_KEEP_DATABASES=1; the database named bench_<run>_wh). It needs a Postgres started with
-- track_commit_timestamp = on, so that each event's commit time can be read from its row's xmin
-- (events are insert-only: the row's xmin is the transaction that recorded the expiry).
--   psql -d bench_<run>_wh -f bench/webhook-stages.sql
-- Stages of merchant W's payment.expired events (ms, same machine clock):
--   decision → commit   the event's created_at (the expiry actor's decision) to its commit
--   commit → attempt    the commit to the first attempt's start (wake-up, claim, the endpoint's bound)
--   request             the first attempt's start to the receiver's answer
--   commit → answer, decision → answer   the sums (the bench's latency starts at created_at)
-- Ramp: the first 4 seconds of expiries, while both merchants' loads start; steady: the rest.
\pset footer off
WITH x AS (
  SELECT e.created_at AS decided, pg_xact_commit_timestamp(e.xmin) AS committed, a.started_at AS started,
         a.started_at + make_interval(secs => a.duration_ms / 1000.0) AS answered
  FROM events e
  JOIN webhook_deliveries d ON d.event_id = e.id
  JOIN webhook_attempts a ON a.delivery_id = d.id AND a.attempt = 1
  WHERE e.type = 'payment.expired' AND d.api = 'merchant'
), y AS (
  SELECT *, CASE WHEN committed < (SELECT min(committed) FROM x) + interval '4 s' THEN 'ramp' ELSE 'steady' END AS part FROM x
), ms AS (
  SELECT part, extract(epoch FROM committed - decided) * 1000 AS decision_commit, extract(epoch FROM started - committed) * 1000 AS commit_attempt,
         extract(epoch FROM answered - started) * 1000 AS request, extract(epoch FROM answered - committed) * 1000 AS commit_answer,
         extract(epoch FROM answered - decided) * 1000 AS decision_answer
  FROM y
)
SELECT part, count(*) AS events,
  round(percentile_cont(0.5) WITHIN GROUP (ORDER BY decision_commit)::numeric) AS "decision→commit p50",
  round(percentile_cont(0.99) WITHIN GROUP (ORDER BY decision_commit)::numeric) AS "p99",
  round(percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_attempt)::numeric) AS "commit→attempt p50",
  round(percentile_cont(0.99) WITHIN GROUP (ORDER BY commit_attempt)::numeric) AS "p99",
  round(percentile_cont(0.5) WITHIN GROUP (ORDER BY request)::numeric) AS "request p50",
  round(percentile_cont(0.99) WITHIN GROUP (ORDER BY request)::numeric) AS "p99",
  round(percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_answer)::numeric) AS "commit→answer p50",
  round(percentile_cont(0.99) WITHIN GROUP (ORDER BY commit_answer)::numeric) AS "p99",
  round(percentile_cont(0.5) WITHIN GROUP (ORDER BY decision_answer)::numeric) AS "decision→answer p50",
  round(percentile_cont(0.99) WITHIN GROUP (ORDER BY decision_answer)::numeric) AS "p99"
FROM ms GROUP BY ROLLUP (part) ORDER BY part NULLS LAST;
-- Per second of commit: how many events committed, and how long they waited for their first attempt.
SELECT date_trunc('second', committed)::time AS second, count(*) AS events,
  round(percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM started - committed) * 1000)::numeric) AS "commit→attempt p50",
  round(percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM started - committed) * 1000)::numeric) AS "p99"
FROM (SELECT pg_xact_commit_timestamp(e.xmin) AS committed, a.started_at AS started
      FROM events e JOIN webhook_deliveries d ON d.event_id = e.id JOIN webhook_attempts a ON a.delivery_id = d.id AND a.attempt = 1
      WHERE e.type = 'payment.expired' AND d.api = 'merchant') s
GROUP BY 1 ORDER BY 1;
