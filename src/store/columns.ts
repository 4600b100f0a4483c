// The columns of the tables that named statements read whole, as the migrations leave them, for
// the statements to list instead of `*`. Postgres fixes a named (prepared) statement's result type
// when it is prepared; once a migration adds a column to its table, a `*` statement fails on each
// connection that prepared it ("cached plan must not change result type", 0A000), and the pool then
// drops that connection. A process still running the previous release while the next one migrates
// would fail a request for each of its connections and each such statement (18 of them) until
// every connection had been replaced. A listed statement is unaffected by a new column.
// test/integration/schema-columns.test.ts checks these lists against the migrated schema and each
// statement across an added column: a migration that adds a column the code reads adds it here too.

export const COLUMNS = {
  payments: ['id', 'merchant_id', 'livemode', 'status', 'amount', 'currency', 'amount_refunded', 'fee', 'net', 'charged',
    'order_id', 'description', 'metadata', 'method', 'customer', 'card', 'failure', 'return_url', 'locale', 'source',
    'created_at', 'paid_at', 'expires_at', 'updated_at', 'version', 'request_id', 'idempotency_key', 'request_hash',
    'expiry_lease', 'checkout', 'pending_attempt', 'link_id', 'channel_id', 'session', 'test_clock_id', 'due_at'],
  links: ['id', 'merchant_id', 'livemode', 'type', 'amount', 'currency', 'description', 'max_uses', 'uses', 'holds',
    'expires_at', 'active', 'created_at', 'updated_at', 'version', 'request_id', 'idempotency_key', 'request_hash', 'test_clock_id'],
  merchants: ['id', 'name', 'default_currency', 'currencies', 'api_enabled', 'rate_limit_per_minute', 'fee_bps', 'fee_fixed',
    'is_demo', 'created_at', 'updated_at', 'version', 'allowed_domains', 'card_data_allowed'],
  channels: ['id', 'uuid', 'merchant_id', 'livemode', 'slug', 'name', 'status', 'is_default', 'branding', 'webhook_url',
    'webhook_secret', 'previous_webhook_secret', 'previous_secret_expires_at', 'currencies', 'created_at', 'updated_at',
    'deleted_at', 'version'],
  payouts: ['id', 'merchant_id', 'livemode', 'amount', 'currency', 'status', 'destination', 'failure', 'metadata',
    'attempt_id', 'connector_ref', 'request_id', 'idempotency_key', 'request_hash', 'version', 'created_at', 'updated_at'],
  refunds: ['id', 'payment_id', 'merchant_id', 'livemode', 'amount', 'currency', 'status', 'reason', 'failure_code',
    'attempt_id', 'connector_ref', 'request_id', 'idempotency_key', 'request_hash', 'created_at', 'updated_at'],
  connector_attempts: ['id', 'aggregate_id', 'operation', 'connector', 'amount', 'currency', 'status', 'context', 'result',
    'recover_lease', 'created_at', 'updated_at', 'idempotency_scope', 'request_hash', 'request_id'],
  sbp_members: ['member_id', 'name_en', 'name_ru', 'name_az', 'logo_url', 'deeplink_ios', 'deeplink_android', 'is_popular',
    'display_order', 'active', 'created_at', 'updated_at'],
} as const;

export type Table = keyof typeof COLUMNS;

/** Every column of `table`, for a select list or RETURNING: `id, merchant_id, …`, or `p.id, p.merchant_id, …` with an alias. */
export function columns(table: Table, alias?: string): string {
  const key = `${table} ${alias ?? ''}`;
  let list = joined.get(key);
  if (list === undefined) joined.set(key, list = COLUMNS[table].map((c) => (alias ? `${alias}.${c}` : c)).join(', '));
  return list;
}

/** Each list joined once: the reads that name them run on every request. */
const joined = new Map<string, string>();
