-- Room on each page for an update to stay on its page (a HOT update: no new entry in any index).
-- A payment row is updated in place several times after its insert: a refund's or a capture's
-- attempt names itself on the payment (`version`, `pending_attempt`: no indexed column), which is
-- HOT only when the row's page has room; a refund's settlement changes only unindexed columns of
-- its refund row. With every page packed full (fillfactor 100) each such update wrote a new entry
-- in every index of the table (nine on payments). Applies to pages written from now on; existing
-- pages fill as before until they are rewritten (VACUUM FULL or a dump and restore).
ALTER TABLE payments SET (fillfactor = 80);
ALTER TABLE refunds SET (fillfactor = 80);
