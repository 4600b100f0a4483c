// Leased rate-limit windows over one store, as several processes would share Redis: never more
// than the limit in total, bursts served by one lease, a changed limit starting afresh.
import t from 'tap';
import { MemoryKeyValue } from '../../src/store/kv-memory.js';
import { RateLeases, blockFor } from '../../src/http/rate-leases.js';
import type { KeyValue } from '../../src/store/kv.js';

/** Counts the store's lease calls, passing them through. */
function counting(kv: KeyValue): KeyValue & { leases: number } {
  const c = Object.create(kv) as KeyValue & { leases: number };
  c.leases = 0;
  c.rateLease = (...a) => { c.leases++; return kv.rateLease(...a); };
  return c;
}

const spendMany = (l: RateLeases, key: string, limit: number, n: number) =>
  Promise.all(Array.from({ length: n }, () => l.spend(key, limit, Date.now())));

t.test('block sizes: one unit below 200, 1 % up to 256', async (t) => {
  t.same([1, 50, 199, 200, 1000, 25_600, 1_000_000].map(blockFor), [1, 1, 1, 2, 10, 256, 256]);
});

t.test('three holders on one store never admit more than the limit, and small limits exactly', async (t) => {
  for (const limit of [7, 120, 999, 5000]) {
    const kv = new MemoryKeyValue();
    const holders = [new RateLeases(kv), new RateLeases(kv), new RateLeases(kv)];
    const all = (await Promise.all(holders.map((h) => spendMany(h, 'k', limit, Math.ceil(limit * 0.6))))).flat();
    const tickets = all.flatMap((s) => (s.kind === 'admitted' ? [s.ticket] : []));
    t.ok(tickets.length <= limit, `limit ${limit}: admitted ${tickets.length}`);
    t.ok(tickets.length >= limit - holders.length * blockFor(limit), `limit ${limit}: at most a block per holder unspent`);
    if (blockFor(limit) === 1) t.equal(tickets.length, limit, `limit ${limit}: exact`);
    t.equal(new Set(tickets).size, tickets.length, 'every unit spent once');
    t.ok(all.every((s) => s.kind !== 'unavailable'));
    for (const h of holders) h.close();
    await kv.close();
  }
});

t.test('a burst waits on one lease; held units are spent without the store', async (t) => {
  const kv = counting(new MemoryKeyValue());
  const l = new RateLeases(kv);
  const first = await spendMany(l, 'k', 100_000, 500);
  t.ok(first.every((s) => s.kind === 'admitted'));
  t.ok(kv.leases <= 2, `500 parallel requests took ${kv.leases} leases`);
  const before = kv.leases;
  const s = l.spend('k', 100_000, Date.now());
  t.notOk(s instanceof Promise, 'a held unit is spent synchronously');
  t.equal(kv.leases, before);
  l.close();
});

t.test('a spent window answers locally until it ends; a changed limit starts afresh', async (t) => {
  const kv = counting(new MemoryKeyValue());
  const l = new RateLeases(kv);
  await spendMany(l, 'k', 3, 3);
  const denied = await l.spend('k', 3, Date.now());
  t.equal(denied.kind, 'denied');
  const n = kv.leases;
  t.equal((l.spend('k', 3, Date.now()) as { kind: string }).kind, 'denied', 'no store call while the window is known spent');
  t.equal(kv.leases, n);
  const raised = await l.spend('k', 5, Date.now());
  t.same(raised.kind === 'admitted' && raised.ticket, 4, 'the store counted 3; a raised limit admits the fourth');
  l.close();
});

t.test('a store that fails or does not answer in time lets the waiting requests through', async (t) => {
  const broken = Object.create(new MemoryKeyValue()) as KeyValue;
  broken.rateLease = async () => { throw new Error('down'); };
  const l = new RateLeases(broken);
  t.same(await spendMany(l, 'k', 5, 10).then((r) => new Set(r.map((s) => s.kind))), new Set(['unavailable']));
  const silent = Object.create(new MemoryKeyValue()) as KeyValue;
  silent.rateLease = () => new Promise(() => {});
  const s = new RateLeases(silent, 50);
  t.same(await spendMany(s, 'k', 5, 3).then((r) => r.map((x) => x.kind)), ['unavailable', 'unavailable', 'unavailable'], 'after the lease deadline');
  l.close(); s.close();
});
