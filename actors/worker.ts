// Worker-thread entry. Piscina runs one long-lived task per shard: it receives a MessagePort,
// serves commands for the aggregates of its shard through a keyed mailbox, and returns only
// when told to drain (shutdown).
import type { MessagePort } from 'node:worker_threads';
import { createPool } from '../src/store/db.js';
import { createLogger } from '../src/log.js';
import { fail } from '../src/errors.js';
import { KeyedMailbox } from './mailbox.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { onWebhookWake } from './webhook-wakeup.js';
import { GroupWriter } from './group-writer.js';
import { insertPayments, updatePayments } from '../src/store/payments-repo.js';
import { handleApply, handleCreate, passivate, type ActorContext } from './payment-actor.js';
import { handleCheckoutCallback, handleCheckoutComplete, handleCheckoutPay, handleCheckoutSubmit } from './checkout-actor.js';
import type { Command, FromWorker, Reply, ToWorker, WorkerInit } from './protocol.js';

const IDLE_MS = 30_000;
const MAX_ACTORS = 10_000;

async function execute(ctx: ActorContext, cmd: Command): Promise<Reply> {
  switch (cmd.kind) {
    case 'payment.create': return handleCreate(ctx, cmd.input, cmd.ctx);
    case 'payment.apply': return handleApply(ctx, cmd.id, cmd.command);
    case 'checkout.pay': return handleCheckoutPay(ctx, cmd.id, cmd.card, cmd.summary);
    case 'checkout.submit': return handleCheckoutSubmit(ctx, cmd.id, cmd.action);
    case 'checkout.callback': return handleCheckoutCallback(ctx, cmd.id, cmd.ref, cmd.answer);
    case 'checkout.complete': return handleCheckoutComplete(ctx, cmd.id, cmd.outcome, cmd.failureCode);
  }
}

export default async function runShard({ port, init }: { port: MessagePort; init: WorkerInit }): Promise<string> {
  const log = createLogger(init.logLevel).child({ shard: init.shard });
  const db = createPool(init.databaseUrl, { max: init.poolSize, name: `${init.appName}:w${init.shard}`, timeouts: init.dbTimeouts });
  const ctx: ActorContext = {
    db, cache: new Map(), now: Date.now, publicBaseUrl: init.publicBaseUrl,
    creates: new GroupWriter((ps) => insertPayments(db, ps)),
    updates: new GroupWriter((us) => updatePayments(db, us)),
  };
  const mailbox = new KeyedMailbox(init.mailboxLimit);
  let processed = 0;
  const send = (m: FromWorker) => port.postMessage(m);
  const w = init.webhooks;
  const hooksDb = createPool(init.databaseUrl, { max: Math.max(1, init.hooksPoolSize), name: `${init.appName}:hooks${init.shard}`, timeouts: init.dbTimeouts, relaxedCommit: true });
  const webhooks = new WebhookDispatcher({
    db: hooksDb, publicBaseUrl: init.publicBaseUrl, allowPrivate: w.allowPrivate, timeoutMs: w.timeoutMs, leaseMs: w.leaseMs,
    pollMs: w.pollMs, maxInflight: w.concurrency, perEndpoint: w.perEndpoint, log: log.child({ component: 'webhooks' }),
  });
  // Woken by the process's LISTEN connection when any process queues deliveries (and by its own commits).
  let stopWake = (): void => {};
  if (w.dispatch) { webhooks.start(); ctx.onDeliveries = () => webhooks.kick(); stopWake = onWebhookWake(() => webhooks.kick()); }
  const sweeper = setInterval(() => passivate(ctx, IDLE_MS, MAX_ACTORS), 10_000);

  return new Promise<string>((resolve) => {
    port.on('message', (msg: ToWorker) => {
      if (msg.t === 'cmd') {
        const { rid, cmd } = msg;
        const accepted = mailbox.push(cmd.id, async () => {
          let reply: Reply;
          try {
            reply = await execute(ctx, cmd);
          } catch (err) {
            log.error({ err, id: cmd.id, kind: cmd.kind }, 'actor command threw');
            reply = { ok: false, failure: { ...fail('service_unavailable', null, (err as Error).message), retryAfterSeconds: 1 } };
          }
          processed++;
          send({ t: 'reply', rid, reply });
        });
        if (!accepted) send({ t: 'reply', rid, reply: { ok: false, failure: { ...fail('service_unavailable', null, 'mailbox full'), retryAfterSeconds: 1 } } });
      } else if (msg.t === 'stats') {
        send({ t: 'stats', rid: msg.rid, stats: { shard: init.shard, mailboxDepth: mailbox.depth, actors: ctx.cache.size, processed } });
      } else if (msg.t === 'drain') {
        void (async () => {
          await mailbox.idle();
          stopWake();
          await webhooks.stop();
          await hooksDb.end().catch(() => {});
          clearInterval(sweeper);
          await db.end().catch(() => {});
          port.close();
          resolve('drained');
        })();
      }
    });
  });
}
