// Where the webhook dispatchers' work went in a run, from the server's own counters at its end
// (src/metrics/webhooks.ts): how often they were woken and by what, how many claims those wake-ups
// became and how many deliveries each claim leased, the time spent rendering and signing bodies, and
// how many requests opened a connection. Issue 25 asks for exactly these when the webhook p99 misses
// (NOTIFY coalescing, claim batch size, signing, the HTTP client's keep-alive). Pure: text in, figures out.

export interface DispatchFigures {
  wakeups: { notify: number; commit: number; slot: number; poll: number };
  claims: number; emptyClaims: number; claimed: number;
  /** claimed ÷ claims that leased at least one. */
  deliveriesPerClaim: number | null;
  /** every wake-up ÷ every claim: how many calls one claim answered. */
  wakeupsPerClaim: number | null;
  /** Requests sent on a new connection, and on a kept-alive one. */
  newSockets: number; reusedSockets: number;
  /** Connections the receiver accepted (its own count: the other end of newSockets). */
  receiverConnections: number | null;
  /** Rendering and signing a body, µs per request sent. */
  renderUsPerRequest: number | null;
}

/** The value of one series of a Prometheus text exposition (0 when absent): `labels` as written, e.g. `source="poll"`. */
export function seriesValue(text: string, name: string, labels = ''): number {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^${esc(name)}${labels ? `\\{${esc(labels)}\\}` : ''} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

const ratio = (a: number, b: number, digits = 2): number | null => (b > 0 ? Number((a / b).toFixed(digits)) : null);

export function dispatchFigures(text: string, receiverConnections: number | null): DispatchFigures {
  const wake = (source: string) => seriesValue(text, 'webhook_wakeups_total', `source="${source}"`);
  const wakeups = { notify: wake('notify'), commit: wake('commit'), slot: wake('slot'), poll: wake('poll') };
  const took = seriesValue(text, 'webhook_claims_total', 'result="took"');
  const emptyClaims = seriesValue(text, 'webhook_claims_total', 'result="empty"');
  const claimed = seriesValue(text, 'webhook_claimed_total');
  const newSockets = seriesValue(text, 'webhook_requests_total', 'socket="new"');
  const reusedSockets = seriesValue(text, 'webhook_requests_total', 'socket="reused"');
  const all = wakeups.notify + wakeups.commit + wakeups.slot + wakeups.poll;
  return {
    wakeups, claims: took + emptyClaims, emptyClaims, claimed,
    deliveriesPerClaim: ratio(claimed, took, 1), wakeupsPerClaim: ratio(all, took + emptyClaims, 1),
    newSockets, reusedSockets, receiverConnections,
    renderUsPerRequest: ratio(seriesValue(text, 'webhook_render_seconds_total') * 1e6, newSockets + reusedSockets, 1),
  };
}
