/**
 * Thin typed wrapper around fetch with retries, timeouts and JSON decoding.
 */

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
  retries?: number;
  signal?: AbortSignal;
}

export class HttpError extends Error {
  constructor(
    public readonly status: number,
    public readonly url: string,
    public readonly body: string,
  ) {
    super(`HTTP ${status} for ${url}: ${body.slice(0, 200)}`);
    this.name = 'HttpError';
  }
}

const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class ApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token?: string,
    private readonly fetchImpl: typeof fetch = globalThis.fetch.bind(globalThis),
  ) {}

  buildUrl(path: string, query: RequestOptions['query'] = {}): string {
    const url = new URL(path.replace(/^\//, ''), this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url.toString();
  }

  async request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
    const { method = 'GET', query, body, headers = {}, timeoutMs = 10_000, retries = 2 } = opts;
    const url = this.buildUrl(path, query);
    let attempt = 0;

    for (;;) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      opts.signal?.addEventListener('abort', () => controller.abort(), { once: true });
      try {
        const res = await this.fetchImpl(url, {
          method,
          signal: controller.signal,
          headers: {
            Accept: 'application/json',
            ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
            ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
            ...headers,
          },
          body: body !== undefined ? JSON.stringify(body) : undefined,
        });
        if (res.ok) {
          return res.status === 204 ? (undefined as T) : ((await res.json()) as T);
        }
        const text = await res.text();
        if (!RETRYABLE.has(res.status) || attempt >= retries) {
          throw new HttpError(res.status, url, text);
        }
      } catch (err) {
        if (err instanceof HttpError || attempt >= retries || opts.signal?.aborted) throw err;
      } finally {
        clearTimeout(timer);
      }
      attempt += 1;
      // exponential backoff with jitter: 250ms, 500ms, 1s, ...
      await sleep(250 * 2 ** (attempt - 1) + Math.random() * 100);
    }
  }

  get<T>(path: string, query?: RequestOptions['query']): Promise<T> {
    return this.request<T>(path, { query });
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.request<T>(path, { method: 'POST', body });
  }
}
