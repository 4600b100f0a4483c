// A tiny JSON client for the operator API: one fetch per call, the error envelope turned into ApiError.

export interface ClientOptions {
  baseUrl: string;
  token: string | null;
  timeoutMs: number;
}

export interface RawResponse { status: number; body: unknown }

/** An answer in the API's error envelope, or a transport failure (status 0): exit code 1. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null = null,
    readonly requestId: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface Envelope { error?: { code?: unknown; message?: unknown; param?: unknown }; request_id?: unknown }

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export class Client {
  private readonly baseUrl: string;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** Sends the request and returns whatever came back, error statuses included. */
  async raw(method: string, path: string, body?: unknown): Promise<RawResponse> {
    const headers: Record<string, string> = { accept: 'application/json', 'accept-language': 'en' };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(this.baseUrl + path, {
        method, headers, body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const why = e.name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message);
      throw new ApiError(0, 'connection_failed', `cannot reach ${this.baseUrl}: ${why}`);
    }
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON: keep the text */ }
    return { status: res.status, body: parsed };
  }

  /** The same server with another Bearer token (a merchant's key instead of the operator token). */
  withToken(token: string): Client {
    return new Client({ ...this.options, token });
  }

  /** Sends the request; a non-2xx answer becomes an ApiError carrying the envelope's code. */
  async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await this.raw(method, path, body);
    if (res.status >= 200 && res.status < 300) return res.body;
    const env = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as Envelope;
    const code = str(env.error?.code) ?? `http_${res.status}`;
    const message = str(env.error?.message) ?? (typeof res.body === 'string' && res.body ? res.body.slice(0, 200) : `HTTP ${res.status}`);
    throw new ApiError(res.status, code, message, str(env.error?.param), str(env.request_id));
  }
}

/** One path segment, safely encoded: ids come from the command line. */
export const seg = (s: string): string => encodeURIComponent(s);
