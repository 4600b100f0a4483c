// Redis implementation of the key-value port, for one Redis or a Redis Cluster. Redis is a cache
// that callers fail open around, so a failing Redis must cost a request next to nothing:
// - every operation, retries and cluster redirections included, is bounded by KV_TIMEOUT_MS
//   (well inside any request's deadline; past it the caller sees an error and fails open);
// - a circuit breaker per Redis node (src/store/kv-breaker.ts) stops asking a node after a run of
//   failures, so that with one cluster master down only the keys of its slots fail, and at once;
//   after a pause one call probes the node and closes the breaker when it answers;
// - ping() (health) asks every master that owns slots through the same routing as the requests.
// Each operation touches one key (a Lua script with one KEYS entry), so the same code runs on a
// cluster; an operation over several keys must give them one {hash tag}. A new operation must go
// through guarded() to have the bound and the breaker.
import { Redis, Cluster } from 'ioredis';
import calculateSlot from 'cluster-key-slot';
import { withDeadline } from '../deadline.js';
import { Breaker, DEFAULT_BREAKER, KvUnavailableError, type BreakerOptions } from './kv-breaker.js';
import type { KeyValue, RateLease } from './kv.js';

/**
 * Bound of one operation, every retry included: Redis's own command timeout. (500 ms let rate-limit
 * leases fail open on a merely slow, overloaded Redis; the breaker keeps a dead node's cost to the
 * first few calls either way.)
 */
export const KV_TIMEOUT_MS = 1000;

// ARGV: window ms, units wanted, limit. The counter never exceeds the limit.
const RATE_LEASE = `
local c = tonumber(redis.call('GET', KEYS[1]) or '-1')
if c < 0 then redis.call('SET', KEYS[1], 0, 'PX', ARGV[1]); c = 0 end
local g = math.min(tonumber(ARGV[2]), tonumber(ARGV[3]) - c)
if g > 0 then redis.call('INCRBY', KEYS[1], g) else g = 0 end
local t = redis.call('PTTL', KEYS[1])
if t < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); t = tonumber(ARGV[1]) end
return {c, g, t}`;

const SET_IF_ABSENT = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return redis.call('GET', KEYS[1]) or ''`;

// KEYS: the keys; ARGV: their values, then the time to live in ms.
const SET_MANY = `
local ttl = ARGV[#KEYS + 1]
for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[i], 'PX', ttl) end
return #KEYS`;

interface Scripts {
  setMany(numKeys: number, ...args: (string | number)[]): Promise<number>;
  rateLease(key: string, windowMs: number, want: number, limit: number): Promise<[number, number, number]>;
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<string | null>;
}
type Client = (Redis | Cluster) & Scripts;

/** `redis-cluster://h1:6379,h2:6379` names the seed nodes of a Redis Cluster. */
export function clusterNodes(url: string): { host: string; port: number }[] | null {
  if (!url.startsWith('redis-cluster://')) return null;
  return url.slice('redis-cluster://'.length).split(',').filter(Boolean).map((hp) => {
    const [host, port] = hp.trim().split(':');
    return { host, port: Number(port || 6379) };
  });
}

export interface RedisKvOptions {
  timeoutMs?: number;
  breaker?: BreakerOptions;
  /** Told when a node's breaker opens (true) or closes again (false). */
  onBreaker?: (node: string, open: boolean) => void;
  /**
   * Told of the connection's first error of each outage (refused, reset, timed out), with its cause;
   * the client reconnects by itself and is told again only after it was ready once more.
   */
  onConnectionError?: (err: Error) => void;
}

export class RedisKeyValue implements KeyValue {
  readonly kind = 'redis' as const;
  private readonly client: Client;
  private readonly cluster: Cluster | null;
  private readonly timeoutMs: number;
  private readonly breakerOpts: BreakerOptions;
  private readonly breakers = new Map<string, Breaker>();
  /** Per cluster master, a key of ours that hashes to one of its slots (health probes). */
  private readonly probes = new Map<string, string>();

  private readonly onBreaker: (node: string, open: boolean) => void;

  constructor(url: string, private readonly prefix: string, opts: RedisKvOptions = {}) {
    this.onBreaker = opts.onBreaker ?? (() => {});
    const onConnectionError = opts.onConnectionError ?? (() => {});
    this.timeoutMs = opts.timeoutMs ?? KV_TIMEOUT_MS;
    this.breakerOpts = opts.breaker ?? DEFAULT_BREAKER;
    const nodeOpts = {
      keyPrefix: prefix,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      maxRetriesPerRequest: 1,
      commandTimeout: this.timeoutMs,
      connectTimeout: 2000,
      lazyConnect: false,
      retryStrategy: (times: number) => Math.min(times * 200, 2000),
    };
    const seeds = clusterNodes(url);
    this.cluster = seeds ? new Cluster(seeds, {
      keyPrefix: prefix, enableOfflineQueue: false, enableAutoPipelining: true, redisOptions: nodeOpts,
      // Redirections and retries after a node failure stay inside the operation's bound.
      maxRedirections: 3, retryDelayOnFailover: 50, retryDelayOnClusterDown: 50, retryDelayOnTryAgain: 50,
      slotsRefreshTimeout: this.timeoutMs, slotsRefreshInterval: 5000,
      clusterRetryStrategy: (times: number) => Math.min(times * 200, 2000),
    }) : null;
    const client = (this.cluster ?? new Redis(url, nodeOpts)) as Client;
    // The client reconnects by itself and callers see command errors and fail open; the cause of an
    // outage is reported once, not at every retry (every 0.2-2 s while Redis is down).
    let reported = false;
    client.on('error', (err: Error) => { if (!reported) { reported = true; onConnectionError(err); } });
    client.on('ready', () => { reported = false; });
    client.defineCommand('rateLease', { numberOfKeys: 1, lua: RATE_LEASE });
    client.defineCommand('setIfAbsent', { numberOfKeys: 1, lua: SET_IF_ABSENT });
    client.defineCommand('setMany', { lua: SET_MANY });
    this.client = client;
  }

  /** Resolves when connected, or after `ms` either way: a down Redis must not stop the start. */
  async ready(ms = 2000): Promise<boolean> {
    if (this.client.status === 'ready') return true;
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), ms);
      this.client.once('ready', () => { clearTimeout(t); resolve(true); });
    });
  }

  /** The node that serves `key`: its cluster master ("host:port"), or "redis" for one Redis. */
  private nodeOf(key: string): string {
    if (!this.cluster) return 'redis';
    return this.cluster.slots[calculateSlot(this.prefix + key)]?.[0] ?? 'unassigned';
  }

  private breaker(node: string): Breaker {
    let b = this.breakers.get(node);
    if (!b) { b = new Breaker(this.breakerOpts); this.breakers.set(node, b); }
    return b;
  }

  /** Runs one operation on `key` within the bound and through its node's breaker. */
  private async guarded<T>(key: string, op: () => Promise<T>): Promise<T> {
    const node = this.nodeOf(key);
    const b = this.breaker(node);
    if (!b.allow()) throw new KvUnavailableError(node);
    const r = await withDeadline(op(), this.timeoutMs);
    if (r.timedOut || r.error !== undefined) {
      const was = b.state;
      b.failure();
      if (was === 'closed' && b.state !== 'closed') this.onBreaker(node, true);
      throw r.error ?? new Error(`redis did not answer within ${this.timeoutMs} ms`);
    }
    if (b.state !== 'closed') this.onBreaker(node, false);
    b.success();
    return r.value as T;
  }

  /** Nodes whose breaker is open (or probing): their keys fail open without asking them. */
  openNodes(): string[] {
    return [...this.breakers].filter(([, b]) => b.state !== 'closed').map(([n]) => n);
  }

  async rateLease(key: string, windowMs: number, want: number, limit: number): Promise<RateLease> {
    const [before, granted, ttlMs] = await this.guarded(key, () => this.client.rateLease(key, windowMs, want, limit));
    return { before: Number(before), granted: Number(granted), ttlMs: Number(ttlMs) };
  }

  async setIfAbsent(key: string, value: string, ttlMs: number) {
    const r = await this.guarded(key, () => this.client.setIfAbsent(key, value, ttlMs));
    return r === null || r === undefined ? null : String(r);
  }

  async set(key: string, value: string, ttlMs: number) { await this.guarded(key, () => this.client.set(key, value, 'PX', ttlMs)); }
  async setMany(entries: [string, string][], ttlMs: number) {
    if (entries.length === 0) return;
    if (entries.length === 1 || this.cluster) {
      // A script's keys must share a slot in a cluster: each key goes to its own node.
      await Promise.all(entries.map(([k, v]) => this.set(k, v, ttlMs)));
      return;
    }
    const args: (string | number)[] = entries.map(([k]) => k);
    for (const [, v] of entries) args.push(v);
    args.push(ttlMs);
    await this.guarded(entries[0][0], () => this.client.setMany(entries.length, ...args));
  }

  async get(key: string) { return this.guarded(key, () => this.client.get(key)); }
  async del(key: string) { await this.guarded(key, () => this.client.del(key)); }

  /**
   * Health: one Redis answers PING; a cluster has an owner for every slot and every owning master
   * answers a read of a key in its slots, routed as requests are (a surviving node answering PING
   * says nothing about the slots of a dead one). Also false while a breaker is open.
   */
  async ping() {
    // Through the breakers: a node whose breaker is open answers false at once, and once its pause is
    // over the health check itself is the probe that closes it (an idle server must not report kv
    // down until some request happens to touch Redis).
    const asked = async (key: string, op: () => Promise<unknown>) => { try { return await this.guarded(key, op); } catch { return undefined; } };
    if (!this.cluster) return (await asked('health', () => this.client.ping())) === 'PONG';
    const slots = this.cluster.slots;
    if (slots.length < 16384) return false;
    const owners = new Set<string>();
    for (let s = 0; s < 16384; s++) { const o = slots[s]?.[0]; if (!o) return false; owners.add(o); }
    const answers = await Promise.all([...owners].map((o) => { const k = this.probeKey(o); return asked(k, () => this.client.exists(k)); }));
    return answers.every((a) => typeof a === 'number') && this.openNodes().length === 0;
  }

  /** A key (without the prefix) that hashes to a slot `owner` serves. */
  private probeKey(owner: string): string {
    const known = this.probes.get(owner);
    if (known && this.nodeOf(known) === owner) return known;
    for (let i = 0; i < 100_000; i++) {
      const k = `health:${i}`;
      if (this.nodeOf(k) === owner) { this.probes.set(owner, k); return k; }
    }
    return 'health:0';
  }

  async close() { this.client.disconnect(); }
}
