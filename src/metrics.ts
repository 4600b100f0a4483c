// Prometheus metrics kept in plain maps; the text format is rendered on scrape.

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface Histogram { buckets: number[]; sum: number; count: number }

export class Metrics {
  private readonly requests = new Map<string, number>();
  private readonly latency = new Map<string, Histogram>();
  kvFailOpen = 0;
  /** SBP bank lists answered empty because the list could not be read (src/http/sbp-list.ts). */
  sbpListFailOpen = 0;

  observe(route: string, method: string, status: number, seconds: number): void {
    const key = `${method}\u0000${route}\u0000${status}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    const hk = `${method}\u0000${route}`;
    let h = this.latency.get(hk);
    if (!h) { h = { buckets: new Array(BUCKETS.length).fill(0), sum: 0, count: 0 }; this.latency.set(hk, h); }
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]) { h.buckets[i]++; break; }
    h.sum += seconds;
    h.count++;
  }

  render(gauges: { name: string; help: string; samples: { labels?: Record<string, string | number>; value: number }[] }[]): string {
    const out: string[] = [];
    out.push('# HELP http_requests_total HTTP requests by route, method and status.', '# TYPE http_requests_total counter');
    for (const [k, v] of this.requests) {
      const [method, route, status] = k.split('\u0000');
      out.push(`http_requests_total{method="${method}",route="${esc(route)}",status="${status}"} ${v}`);
    }
    out.push('# HELP http_request_duration_seconds Time from request to answer.', '# TYPE http_request_duration_seconds histogram');
    for (const [k, h] of this.latency) {
      const [method, route] = k.split('\u0000');
      const l = `method="${method}",route="${esc(route)}"`;
      let cum = 0;
      BUCKETS.forEach((b, i) => { cum += h.buckets[i]; out.push(`http_request_duration_seconds_bucket{${l},le="${b}"} ${cum}`); });
      out.push(`http_request_duration_seconds_bucket{${l},le="+Inf"} ${h.count}`);
      out.push(`http_request_duration_seconds_sum{${l}} ${h.sum}`, `http_request_duration_seconds_count{${l}} ${h.count}`);
    }
    out.push('# HELP kv_fail_open_total Requests let through because the key-value store was unreachable.', '# TYPE kv_fail_open_total counter');
    out.push(`kv_fail_open_total ${this.kvFailOpen}`);
    out.push('# HELP sbp_list_fail_open_total SBP bank list lookups answered with an empty list (error or deadline).', '# TYPE sbp_list_fail_open_total counter');
    out.push(`sbp_list_fail_open_total ${this.sbpListFailOpen}`);
    for (const g of gauges) {
      out.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`);
      for (const s of g.samples) {
        const labels = s.labels ? `{${Object.entries(s.labels).map(([k, v]) => `${k}="${esc(String(v))}"`).join(',')}}` : '';
        out.push(`${g.name}${labels} ${s.value}`);
      }
    }
    return out.join('\n') + '\n';
  }
}

const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
