// How many requests one webhook endpoint may have open at once, per dispatch thread: an adaptive
// bound. It starts at the configured bound (`base`). A request that began with the endpoint
// saturated (at least as much work waiting as free slots) and ended in a 2xx within `fastMs` widens
// the bound by one, up to `max`: an endpoint that keeps up gets more of its backlog in flight, one
// slot per fast answer, so a round of such answers doubles it (TCP's slow start). Any other end (no
// answer, a time-out, a non-2xx, or a 2xx slower than `fastMs`) halves it, never below `base`: a
// struggling endpoint is back at the fixed bound it had before, so what it sees from us is never
// more than that. It halves once per round of requests, as TCP does once per window: an end that
// began before the latest halving says nothing new (a stall of a second makes every open request
// slow at once; that is one signal, not thirty).
// Pure: the dispatcher keeps the numbers.

export interface EndpointBoundConfig {
  /** The bound every endpoint starts at, and the floor it returns to. */
  base: number;
  /** The most a fast endpoint's bound grows to. */
  max: number;
  /** A 2xx answered within this many milliseconds is fast. */
  fastMs: number;
}

/** How a request to the endpoint ended, as the bound sees it. */
export interface RequestEnd {
  /** A 2xx answer. */
  ok: boolean;
  durationMs: number;
  /**
   * The endpoint was saturated when this request began: the claim that started it got all the room
   * it asked for at the endpoint (or, for an endpoint the claim does not bound, this request took its
   * last slot).
   */
  startedFull: boolean;
  /** The request began after the endpoint's bound was last halved (or it never was). */
  sinceNarrowed: boolean;
}

/** The endpoint's bound after one of its requests ended. */
export function nextBound(bound: number, end: RequestEnd, c: EndpointBoundConfig): number {
  const fast = end.ok && end.durationMs <= c.fastMs;
  if (!fast) return end.sinceNarrowed ? Math.max(c.base, Math.floor(bound / 2)) : bound;
  if (end.startedFull) return Math.min(c.max, bound + 1);
  return bound;
}
