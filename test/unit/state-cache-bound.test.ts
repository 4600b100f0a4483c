// The actors' state cache: `remember` keeps its size bound at every insert (not only at the idle
// sweep), dropping the least recently used state; `passivate` drops the idle ones.
import t from 'tap';
import { MAX_CACHED_STATES, passivate, remember, type StateCache } from '../../actors/context.js';

t.test('a burst of new ids never grows the cache past its bound; the least recently used goes first', async (t) => {
  const cache: StateCache<number> = new Map();
  for (let i = 0; i < 5; i++) remember(cache, `p${i}`, i, 1000 + i, 3);
  t.equal(cache.size, 3);
  t.same([...cache.keys()], ['p2', 'p3', 'p4']);
  remember(cache, 'p2', 20, 2000, 3); // touched again: now the most recent
  remember(cache, 'p5', 5, 2001, 3);
  t.same([...cache.keys()], ['p4', 'p2', 'p5']);
  t.equal(cache.get('p2')!.state, 20);
});

t.test('the default bound is the shard\'s, and holds for far more ids than it', async (t) => {
  const cache: StateCache<number> = new Map();
  for (let i = 0; i < MAX_CACHED_STATES * 2 + 7; i++) remember(cache, `p${i}`, i, i);
  t.equal(cache.size, MAX_CACHED_STATES);
  t.ok(cache.has(`p${MAX_CACHED_STATES * 2 + 6}`), 'the newest is kept');
  t.notOk(cache.has(`p${MAX_CACHED_STATES + 6}`), 'the oldest beyond the bound are gone');
});

t.test('passivate drops the states idle past the cutoff', async (t) => {
  const cache: StateCache<number> = new Map();
  remember(cache, 'old', 1, 0);
  remember(cache, 'new', 2, 50_000);
  t.equal(passivate(cache, 60_000, 30_000), 1);
  t.same([...cache.keys()], ['new']);
});
