// Redis implementation of the key-value port. Commands fail fast while Redis is unreachable
// (no offline queue, short timeout) so that callers can fail open instead of hanging.
// Each operation touches one key, so the same code runs on a Redis Cluster.
import { Redis, Cluster } from 'ioredis';
import type { KeyValue, RateLease } from './kv.js';

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

type Client = Redis & {
  rateLease(key: string, windowMs: number, want: number, limit: number): Promise<[number, number, number]>;
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<string | null>;
};

export class RedisKeyValue implements KeyValue {
  readonly kind = 'redis' as const;
  private readonly client: Client;

  constructor(url: string, prefix: string) {
    const opts = {
      keyPrefix: prefix,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
      connectTimeout: 2000,
      lazyConnect: false,
      retryStrategy: (times: number) => Math.min(times * 200, 2000),
    };
    // redis-cluster://host1:6379,host2:6379 names a Redis Cluster; every key here is a single key,
    // so no hash tags are needed for atomicity.
    const client = (url.startsWith('redis-cluster://')
      ? new Cluster(url.slice('redis-cluster://'.length).split(',').map((hp) => {
        const [host, port] = hp.split(':');
        return { host, port: Number(port || 6379) };
      }), { keyPrefix: prefix, enableOfflineQueue: false, enableAutoPipelining: true, redisOptions: opts })
      : new Redis(url, opts)) as unknown as Client;
    client.on('error', () => {}); // reconnects by itself; callers see command errors and fail open
    client.defineCommand('rateLease', { numberOfKeys: 1, lua: RATE_LEASE });
    client.defineCommand('setIfAbsent', { numberOfKeys: 1, lua: SET_IF_ABSENT });
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

  async rateLease(key: string, windowMs: number, want: number, limit: number): Promise<RateLease> {
    const [before, granted, ttlMs] = await this.client.rateLease(key, windowMs, want, limit);
    return { before: Number(before), granted: Number(granted), ttlMs: Number(ttlMs) };
  }

  async setIfAbsent(key: string, value: string, ttlMs: number) {
    const r = await this.client.setIfAbsent(key, value, ttlMs);
    return r === null || r === undefined ? null : String(r);
  }

  async set(key: string, value: string, ttlMs: number) { await this.client.set(key, value, 'PX', ttlMs); }
  async get(key: string) { return this.client.get(key); }
  async del(key: string) { await this.client.del(key); }
  async ping() {
    try { return (await this.client.ping()) === 'PONG'; } catch { return false; }
  }
  async close() { this.client.disconnect(); }
}

