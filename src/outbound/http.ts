import http from 'node:http';
import { outboundSpan, withTraceHeaders } from '../tracing';
import https from 'node:https';
import { assertSafeEndpoint, guardedLookup, UnsafeEndpointError, type EndpointPolicy } from '../registry/endpoint-safety';

/**
 * Bounded outbound requests to URLs that registrants control (health probes, Agent Card fetches,
 * webhook deliveries):
 * one deadline for the whole exchange, a body size cap, a redirect cap, and the endpoint-safety
 * check on every hop. Failures come back as a reason a caller can show, never as a hang.
 */

export type OutboundFailure = 'unsafe_endpoint' | 'unreachable' | 'timeout' | 'too_large' | 'too_many_redirects';

export class OutboundError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface OutboundOptions {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Answer as soon as the status line and headers arrive; the body is not read (health probes). */
  headersOnly?: boolean;
  policy: EndpointPolicy;
  headers?: Record<string, string>;
  /** GET unless given; a body is sent as is. */
  method?: 'GET' | 'POST';
  body?: string | Buffer;
}

export interface OutboundResponse {
  status: number;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function requestOnce(url: URL, opts: OutboundOptions, signal: AbortSignal): Promise<OutboundResponse> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: opts.method ?? 'GET',
        // The trace context when tracing is on (docs/OPERATIONS.md): the merchant sees `traceparent`.
        headers: withTraceHeaders({ 'user-agent': 'commerce-intent-gateway', ...opts.headers }),
        lookup: guardedLookup(opts.policy) as never,
        signal,
        agent: false,
      },
      (res) => {
        if (opts.headersOnly) {
          res.destroy();
          return resolve({ status: res.statusCode ?? 0, url: url.toString(), headers: res.headers, body: Buffer.alloc(0) });
        }
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > opts.maxBytes) {
          res.destroy();
          return reject(new OutboundError('too_large', `response body of ${declared} bytes exceeds ${opts.maxBytes}`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > opts.maxBytes) {
            res.destroy();
            reject(new OutboundError('too_large', `response body exceeds ${opts.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, url: url.toString(), headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

function classify(err: unknown, signal: AbortSignal, timeoutMs: number): OutboundError {
  if (err instanceof OutboundError) return err;
  if (signal.aborted) return new OutboundError('timeout', `no complete answer within ${timeoutMs} ms`);
  if (err instanceof UnsafeEndpointError || (err as { code?: string }).code === 'EUNSAFE') {
    return new OutboundError('unsafe_endpoint', (err as Error).message);
  }
  const code = (err as { code?: string }).code;
  const message = (err as Error).message;
  return new OutboundError('unreachable', code && !message.includes(code) ? `${code}: ${message}` : message);
}

export async function boundedRequest(rawUrl: string, opts: OutboundOptions): Promise<OutboundResponse> {
  const signal = AbortSignal.timeout(opts.timeoutMs);
  // The deadline also covers DNS resolution, which the socket's abort signal does not reach.
  const deadline = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
  deadline.catch(() => undefined);
  try {
    return await Promise.race([follow(rawUrl, opts, signal), deadline]);
  } catch (err) {
    throw classify(err, signal, opts.timeoutMs);
  }
}

async function follow(rawUrl: string, opts: OutboundOptions, signal: AbortSignal): Promise<OutboundResponse> {
  let current = rawUrl;
  for (let hop = 0; ; hop++) {
    const url = await assertSafeEndpoint(current, opts.policy);
    const res = await outboundSpan(
      `${opts.method ?? 'GET'} ${url.host}`,
      url.toString(),
      () => requestOnce(url, opts, signal),
      (r) => r.status,
    );
    const location = res.headers.location;
    // With no redirects allowed the 3xx itself is the answer (a health probe counts it as a bad status).
    if (res.status < 300 || res.status >= 400 || !location || opts.maxRedirects === 0) return res;
    if (hop >= opts.maxRedirects) throw new OutboundError('too_many_redirects', `more than ${opts.maxRedirects} redirects`);
    current = new URL(location, url).toString();
  }
}
