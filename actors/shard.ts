// One shard on its worker thread: serves the commands for the aggregates of its shard through a
// keyed mailbox, routes the commands its actors ask of other actors through the main thread, and
// returns only when told to drain. The handlers are given (worker.ts gives the engine's; tests give
// tiny fixture ones).
import type { MessagePort } from 'node:worker_threads';
import { createPool, lockTimedOut, neverSent, rolledBack } from '../src/store/db.js';
import { fail } from '../src/errors.js';
import { createLogger } from '../src/log.js';
import { createConnectors } from '../src/connectors/index.js';
import { heldPayments, insertCreates, updatePayments, type PaymentUpdate } from '../src/store/payments-repo.js';
import { beginPaymentAttempts, type PaymentAttemptBegin } from '../src/store/attempts-repo.js';
import { beginRefunds, settleRefunds, type RefundBegin, type RefundSettlement } from '../src/store/refunds-repo.js';
import { beginPayouts, settlePayouts } from '../src/store/payouts-repo.js';
import { KeyedMailbox } from './mailbox.js';
import { ReplayCache } from '../src/store/replay-cache.js';
import { BatchedPort, onBatch } from './batched-port.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { onWebhookWake } from './webhook-wakeup.js';
import { AttemptReads } from '../src/store/attempt-reads.js';
import { GroupWriter } from './group-writer.js';
import { workerMetrics } from './worker-metrics.js';
import { passivate, type ActorContext, type CommandProgress } from './context.js';
import type { Handlers } from './handlers.js';
import { mailboxOf, type Command, type Failed, type FromWorker, type Reply, type ToWorker, type WorkerInit } from './protocol.js';

const IDLE_MS = 30_000;

/**
 * A command's reply as the client may trust it: "nothing committed" (service_unavailable) only when
 * the command committed nothing. Once it has (an attempt recorded, a bank call made, a row written,
 * or its key found holding an object), the failure is an unknown outcome: retry with the same key.
 */
export function answerOf(reply: Reply, progress: CommandProgress): Reply {
  if (reply.ok || reply.failure.code !== 'service_unavailable' || !progress.committed) return reply;
  return { ok: false, failure: { ...fail('outcome_unknown'), retryAfterSeconds: reply.failure.retryAfterSeconds ?? 1 } };
}

/**
 * The reply for an error thrown past the handler. It is "nothing committed" only when the command
 * had committed nothing before and the failing statement surely did not commit (no connection
 * could be made, or Postgres refused it); otherwise (a connection broken mid-statement, a timeout,
 * or an earlier step committed) the outcome is unknown: the client retries with the same key, and
 * version checks, idempotency keys and recovery make that safe.
 */
export function failureOf(err: unknown, progress: CommandProgress): Failed {
  const nothing = !progress.committed && (neverSent(err) || rolledBack(err));
  return { ok: false, failure: { ...fail(nothing ? 'service_unavailable' : 'outcome_unknown'), retryAfterSeconds: 1 } };
}

export async function serveShard(port: MessagePort, init: WorkerInit, handlers: Handlers): Promise<string> {
  const execute = (ctx: ActorContext, cmd: Command): Promise<Reply> =>
    (handlers[cmd.kind] as (ctx: ActorContext, cmd: Command) => Promise<Reply>)(ctx, cmd);
  const log = createLogger(init.logLevel).child({ shard: init.shard });
  const db = createPool(init.databaseUrl, { max: init.poolSize, name: `${init.appName}:w${init.shard}`, log, timeouts: init.dbTimeouts });
  // The sandbox bank stands for a remote acquirer: its ledger's statements run on its own connection
  // when the budget gives it one (pool-budget.ts), named so that pg_stat_activity tells them apart.
  // Its commits do not wait for their WAL flush: every engine commit that records what the bank
  // answered comes later in the same WAL and flushes it, so a Postgres crash can lose a bank row only
  // with everything the engine built on it, as a remote bank that never got the call
  // (docs/decisions.md, "The sandbox bank's commits do not wait for the disk").
  const bankDb = init.bankPoolSize > 0
    ? createPool(init.databaseUrl, { max: init.bankPoolSize, name: `${init.appName}:bank${init.shard}`, log, timeouts: init.dbTimeouts, relaxedCommit: true })
    : null;
  const out = new BatchedPort<FromWorker>(port);
  const send = (m: FromWorker) => out.post(m);
  const asks = new Map<number, (r: Reply) => void>();
  let askId = 0;
  // A write that timed out on a lock (PG_LOCK_TIMEOUT_MS): the writers of payment rows ask which rows
  // are held and send the others again at once; the others fail all that statement's writes, whose
  // outcome is known (group-writer.ts).
  const writes = { ambiguous: (err: unknown) => !rolledBack(err), lockWait: { timedOut: lockTimedOut } };
  const onPayments = <I>(idOf: (x: I) => string) => ({
    ...writes,
    lockWait: {
      timedOut: lockTimedOut,
      held: (xs: I[]) => heldPayments(db, xs.map(idOf)).catch((err: Error) => {
        log.error({ err }, 'after a lock timeout, the rows held could not be told apart; the whole statement fails');
        throw err;
      }),
    },
  });
  const payoutAmbiguous = (err: unknown) => !rolledBack(err) && (err as { code?: string } | null)?.code !== '40P01';
  const ctx: ActorContext = {
    db, log, now: Date.now, publicBaseUrl: init.publicBaseUrl, connectors: createConnectors(bankDb ?? db), connectorTimeoutMs: init.connectorTimeoutMs,
    authorizationWindowSeconds: init.authorizationWindowSeconds,
    ask: (cmd) => new Promise((resolve) => {
      const rid = ++askId;
      asks.set(rid, resolve as (r: Reply) => void);
      send({ t: 'ask', rid, cmd });
    }),
    replays: null,
    payments: {
      cache: new Map(),
      creates: new GroupWriter((cs) => insertCreates(db, cs), { ...writes, groupFirst: true }),
      updates: new GroupWriter((us) => updatePayments(db, us), { ...onPayments<PaymentUpdate>((u) => u.next.id), groupFirst: true }),
      attempts: new GroupWriter((bs) => beginPaymentAttempts(db, bs), { ...onPayments<PaymentAttemptBegin>((b) => b.paymentId), groupFirst: true }),
      refunds: new GroupWriter((bs) => beginRefunds(db, bs), { ...onPayments<RefundBegin>((b) => b.refund.paymentId), groupFirst: true }),
      refundSettles: new GroupWriter((ss) => settleRefunds(db, ss), { ...onPayments<RefundSettlement>((s) => s.next.id), groupFirst: true }),
      reads: new AttemptReads(db, { onError: (err, lookups) => log.error({ err, lookups }, 'grouped read before attempts failed') }),
    },
    // A deadlock (40P01: rolled back, e.g. a recovery settling a payout of the group) is split and tried again too.
    payouts: {
      begins: new GroupWriter((xs) => beginPayouts(db, xs), { ambiguous: payoutAmbiguous, lockWait: writes.lockWait, groupFirst: true }),
      settles: new GroupWriter((ss) => settlePayouts(db, ss), { ambiguous: payoutAmbiguous, lockWait: writes.lockWait, groupFirst: true }),
    },
  };
  const mailbox = new KeyedMailbox(init.mailboxLimit, init.mailboxPerIdLimit);
  let processed = 0;
  const w = init.webhooks;
  const hooksDb = createPool(init.databaseUrl, { max: Math.max(1, init.hooksPoolSize), name: `${init.appName}:hooks${init.shard}`, log, timeouts: init.dbTimeouts, relaxedCommit: true });
  const metrics = workerMetrics(init.shard, { [`w${init.shard}`]: db, [`hooks${init.shard}`]: hooksDb, ...(bankDb ? { [`bank${init.shard}`]: bankDb } : {}) }, () => processed,
    { create: ctx.payments.creates, update: ctx.payments.updates, attempt: ctx.payments.attempts, payout_begin: ctx.payouts.begins, payout_settle: ctx.payouts.settles });
  const webhooks = new WebhookDispatcher({
    db: hooksDb, publicBaseUrl: init.publicBaseUrl, allowPrivate: w.allowPrivate, allowLoopbackTest: w.allowLoopbackTest, timeoutMs: w.timeoutMs, leaseMs: w.leaseMs,
    pollMs: w.pollMs, maxInflight: w.concurrency, perEndpoint: w.perEndpoint, perEndpointMax: w.perEndpointMax, endpointFastMs: w.endpointFastMs, log: log.child({ component: 'webhooks' }), metrics: metrics.webhooks,
  });
  // Woken by the process's LISTEN connection when any process queues deliveries (and by its own commits).
  let stopWake = (): void => {};
  if (w.dispatch) { webhooks.start(); ctx.onDeliveries = () => webhooks.kick('commit'); stopWake = onWebhookWake(() => webhooks.kick('notify')); }
  const sweeper = setInterval(() => passivate(ctx.payments.cache, ctx.now(), IDLE_MS), 10_000);

  // The replay cache's Redis client is loaded after the shard serves: a worker's first commands do
  // not wait for it (until then the front end writes the cache).
  const redisUrl = init.redisUrl;
  if (redisUrl) {
    const onConnectionError = (err: Error) => log.warn({ err }, 'the replay cache\'s redis connection failed; reconnecting (told once per outage)');
    void import('../src/store/kv-redis.js').then(({ RedisKeyValue }) => { ctx.replays = new ReplayCache(new RedisKeyValue(redisUrl, init.kvPrefix ?? '', { onConnectionError })); })
      .catch((err: Error) => log.warn({ err }, 'replay cache unavailable on this worker; the front end writes it'));
  }

  return new Promise<string>((resolve) => {
    onBatch<ToWorker>(port, (msg) => {
      if (msg.t === 'cmd') {
        const { rid, cmd } = msg;
        const pushed = mailbox.push(mailboxOf(cmd), async () => {
          // Each command gets its own record of what it has committed (see answerOf): a context
          // whose prototype is the shard's (about 50 ns; a spread copy measured 4-5 µs here).
          const own: ActorContext = Object.create(ctx) as ActorContext;
          own.progress = { committed: false };
          let reply: Reply;
          try {
            reply = answerOf(await execute(own, cmd), own.progress!);
          } catch (err) {
            reply = failureOf(err, own.progress!);
            log.error({ err, kind: cmd.kind, id: cmd.id }, reply.failure.code === 'service_unavailable' ? 'command failed before anything committed' : 'command failed with an unknown outcome');
          }
          processed++;
          send({ t: 'reply', rid, reply });
        });
        if (pushed !== 'queued') {
          const detail = pushed === 'full' ? 'mailbox full' : 'too many commands queued for this object';
          send({ t: 'reply', rid, reply: { ok: false, failure: { ...fail('service_unavailable', null, detail), retryAfterSeconds: 1 } } });
        }
      } else if (msg.t === 'answer') {
        const done = asks.get(msg.rid);
        if (done) { asks.delete(msg.rid); done(msg.reply); }
      } else if (msg.t === 'stats') {
        const rid = msg.rid;
        const stats = { shard: init.shard, mailboxDepth: mailbox.depth, actors: ctx.payments.cache.size, processed };
        if (!msg.metrics) send({ t: 'stats', rid, stats });
        else void metrics.snapshot().then((m) => send({ t: 'stats', rid, stats: { ...stats, metrics: m } }), () => send({ t: 'stats', rid, stats }));
      } else if (msg.t === 'drain') {
        void (async () => {
          await mailbox.idle();
          stopWake();
          await webhooks.stop();
          await hooksDb.end().catch((err: Error) => log.warn({ err }, 'webhook pool did not close cleanly'));
          clearInterval(sweeper);
          await db.end().catch((err: Error) => log.warn({ err }, 'actor pool did not close cleanly'));
          await bankDb?.end().catch((err: Error) => log.warn({ err }, 'sandbox bank pool did not close cleanly'));
          await ctx.replays?.close();
          out.flush();
          port.close();
          resolve('drained');
        })();
      }
    });
  });
}
