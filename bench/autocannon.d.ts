// The few parts of autocannon 9's programmatic API that the benchmark uses (it ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (req: Request, context: Record<string, unknown>) => Request;
    }
    interface Options {
      /** Several urls: the connections are spread over them in turn. */
      url: string | string[];
      connections?: number;
      duration?: number;
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      requests?: Request[];
      /** Requests per second over all connections; each connection sends its share as a burst every second. */
      overallRate?: number;
      /** At most this many requests over all connections, split evenly (a connection with a share of 0 has no limit). */
      maxOverallRequests?: number;
    }
    interface Histogram {
      average: number; mean: number; stddev: number; min: number; max: number;
      p50: number; p90: number; p97_5: number; p99: number; p99_9: number;
    }
    interface Result {
      requests: Histogram & { total: number };
      latency: Histogram;
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      '2xx': number;
      statusCodeStats: Record<string, { count: number }>;
    }
    interface Instance { stop(): void }
  }
  function autocannon(opts: autocannon.Options, cb: (err: Error | null, res: autocannon.Result) => void): autocannon.Instance;
  export default autocannon;
}
