// The webhook scenario reads the dispatchers' counters from /metrics at the end of its server's run:
// wake-ups by source, claims (and the empty ones), deliveries per claim, requests by socket and the
// signing time per request. Ratios with nothing to divide by are null, never a made-up number.
import t from 'tap';
import { dispatchFigures, seriesValue } from '../../bench/dispatch-figures.js';

const text = [
  '# TYPE webhook_wakeups_total counter',
  'webhook_wakeups_total{source="notify"} 300',
  'webhook_wakeups_total{source="commit"} 100',
  'webhook_wakeups_total{source="slot"} 1500',
  'webhook_wakeups_total{source="poll"} 100',
  'webhook_claims_total{result="took"} 150',
  'webhook_claims_total{result="empty"} 50',
  'webhook_claimed_total 1800',
  'webhook_render_seconds_total 0.09',
  'webhook_requests_total{socket="new"} 64',
  'webhook_requests_total{socket="reused"} 1736',
].join('\n');

t.same(dispatchFigures(text, 70), {
  wakeups: { notify: 300, commit: 100, slot: 1500, poll: 100 },
  claims: 200, emptyClaims: 50, claimed: 1800, deliveriesPerClaim: 12, wakeupsPerClaim: 10,
  newSockets: 64, reusedSockets: 1736, receiverConnections: 70, renderUsPerRequest: 50,
}, 'sums and ratios');

t.same(dispatchFigures('', null), {
  wakeups: { notify: 0, commit: 0, slot: 0, poll: 0 }, claims: 0, emptyClaims: 0, claimed: 0,
  deliveriesPerClaim: null, wakeupsPerClaim: null, newSockets: 0, reusedSockets: 0, receiverConnections: null, renderUsPerRequest: null,
}, 'a server without the counters: zeros, and no ratio');

t.equal(seriesValue(text, 'webhook_claims_total', 'result="empty"'), 50, 'a labelled series');
t.equal(seriesValue(text, 'webhook_claimed_total'), 1800, 'an unlabelled one');
t.equal(seriesValue('webhook_claimed_total_extra 5', 'webhook_claimed_total'), 0, 'a longer name is another series');
