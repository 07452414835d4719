export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/** A small JSON client over real HTTP (fetch). `body` is sent as JSON unless `raw` is given. */
export async function call<T = any>(
  base: string,
  method: string,
  path: string,
  opts: { body?: unknown; raw?: string | Buffer; token?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Buffer | undefined;
  if (opts.raw !== undefined) {
    body = opts.raw;
    headers['content-type'] ??= 'application/json';
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(base + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as T, headers: res.headers, text };
}

export const uniqueEmail = (tag = 'dev') => `${tag}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@Example.com`;

/** Polls GET /healthz until it answers `status` (a server not listening yet counts as no answer). */
export async function waitForHealth(base: string, status: number, timeoutMs = 20_000): Promise<HttpResult> {
  const deadline = Date.now() + timeoutMs;
  let last: HttpResult | undefined;
  while (Date.now() < deadline) {
    last = await call(base, 'GET', '/healthz').catch(() => undefined);
    if (last?.status === status) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`healthz stayed ${last?.status ?? 'unreachable'}: ${last?.text ?? ''}`);
}
