import http from 'node:http';
import { outboundSpan, withTraceHeaders } from '../tracing';
import https from 'node:https';
import type { Socket } from 'node:net';
import { assertSafeEndpoint, guardedLookup, UnsafeEndpointError, type EndpointPolicy } from '../registry/endpoint-safety';

/**
 * Bounded outbound requests to URLs that registrants control (health probes, Agent Card fetches,
 * webhook deliveries, merchant queries):
 * one deadline for the whole exchange, a body size cap, a redirect cap, and the endpoint-safety
 * check on every hop. Failures come back as a reason a caller can show, never as a hang.
 *
 * Connections are kept alive and reused (docs/DECISIONS.md, "Keep-alive for merchant calls"): a
 * webhook burst or a runtime's merchant queries to one host cost a TCP (and TLS) handshake per
 * pooled connection, not per request. The guard is unchanged for it: every request still passes
 * `assertSafeEndpoint`, and every new connection is opened through `guardedLookup` of the pool's
 * address rule, so a pooled connection was checked by the same rule as the request that reuses it.
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
  /**
   * Answer as soon as the status line and headers arrive (health probes, webhook deliveries); the
   * body is not returned. It is drained in the background (at most HEADERS_ONLY_DRAIN_BYTES, within
   * the deadline) so the connection can be reused, and the connection is closed otherwise.
   */
  headersOnly?: boolean;
  policy: EndpointPolicy;
  headers?: Record<string, string>;
  /** GET unless given; a body is sent as is. PUT: a UCP checkout update (src/protocols/ucp/). */
  method?: 'GET' | 'POST' | 'PUT';
  body?: string | Buffer;
}

export interface OutboundResponse {
  status: number;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * Connections per host:port and pool. 128 is what one fan-out batch sends at once
 * (FIRST_ATTEMPT_CONCURRENCY in src/dispatch/surge-page.ts); more requests to one host wait for a
 * connection, inside their deadline. As many may stay idle, so a batch's lanes keep theirs.
 */
export const MAX_SOCKETS_PER_HOST = 128;
/**
 * An idle connection is closed after this long: shorter than the keep-alive timeouts servers commonly
 * use (Node 5 s, nginx 75 s, most load balancers 60 s), so we close first and rarely send on a
 * connection the server is closing. A `Keep-Alive: timeout=N` hint shortens it (Node's agent).
 */
export const FREE_SOCKET_TIMEOUT_MS = 4000;
/** The most of a headers-only answer's body read to keep its connection; a longer body closes it. */
export const HEADERS_ONLY_DRAIN_BYTES = 64 * 1024;

interface Pool {
  'http:': http.Agent;
  'https:': https.Agent;
}

/**
 * One pool per address rule (the policy's `addressAllowed`), so a connection opened under a
 * permissive rule (private addresses allowed) is never handed to a request under a stricter one,
 * and one agent per scheme. The agent's `lookup` overrides the request's (Node merges agent options
 * over request options), so every connection of a pool is opened through that pool's guard.
 */
const pools = new WeakMap<object, Pool>();
let anyAddressPool: Pool | undefined;

function newPool(policy: EndpointPolicy): Pool {
  const options = {
    keepAlive: true,
    maxSockets: MAX_SOCKETS_PER_HOST,
    maxFreeSockets: MAX_SOCKETS_PER_HOST,
    timeout: FREE_SOCKET_TIMEOUT_MS,
    scheduling: 'lifo' as const,
    lookup: guardedLookup(policy) as never,
  };
  return { 'http:': new http.Agent(options), 'https:': new https.Agent(options) };
}

function agentFor(protocol: string, policy: EndpointPolicy): http.Agent {
  const rule = policy.addressAllowed;
  let pool: Pool | undefined;
  if (rule === null) pool = anyAddressPool ??= newPool(policy);
  else {
    pool = pools.get(rule);
    if (!pool) pools.set(rule, (pool = newPool(policy)));
  }
  return protocol === 'https:' ? pool['https:'] : pool['http:'];
}

/** What a pooled connection the server has closed meanwhile fails with, before any answer. */
const STALE_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE']);

/**
 * One request. `fresh`: on a new connection of its own (not pooled), the one retry of a request whose
 * reused connection turned out to be closed by the server before it answered anything.
 */
function requestOnce(url: URL, opts: OutboundOptions, signal: AbortSignal, fresh = false): Promise<OutboundResponse> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let socket: Socket | undefined;
    let readBefore = 0;
    let answered = false;
    const req = client.request(
      url,
      {
        method: opts.method ?? 'GET',
        // The trace context when tracing is on (docs/OPERATIONS.md): the merchant sees `traceparent`.
        headers: withTraceHeaders({ 'user-agent': 'commerce-intent-gateway', ...opts.headers }),
        // The fresh connection (agent: false) is opened through the guard here; a pool's agent sets
        // its own lookup, the same guard, which overrides a request's.
        ...(fresh ? { lookup: guardedLookup(opts.policy) as never } : {}),
        // A deadline that fires mid-exchange destroys the request and with it its connection, so a
        // half-used connection never goes back to the pool.
        signal,
        agent: fresh ? false : agentFor(url.protocol, opts.policy),
      },
      (res) => {
        answered = true;
        if (opts.headersOnly) {
          drainOrClose(res);
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
    req.on('socket', (s: Socket) => {
      socket = s;
      readBefore = s.bytesRead;
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A pooled connection the server closed while it sat idle (its FIN or RST raced our request):
      // nothing of an answer arrived, so the request is sent once more on a new connection. A webhook
      // is de-duplicated by its webhook-id, and a merchant query answers the same query again.
      const stale =
        !fresh &&
        !answered &&
        !signal.aborted &&
        req.reusedSocket &&
        STALE_CONNECTION_CODES.has(err.code ?? '') &&
        (socket?.bytesRead ?? 0) === readBefore;
      if (stale) return resolve(requestOnce(url, opts, signal, true));
      reject(err);
    });
    req.end(opts.body);
  });
}

/**
 * Reads and drops a headers-only answer's body so its connection returns to the pool; a body longer
 * than HEADERS_ONLY_DRAIN_BYTES closes the connection instead (as does the deadline, through the
 * request's abort signal, if the body does not end in time).
 */
function drainOrClose(res: http.IncomingMessage): void {
  res.on('error', () => undefined); // the answer is already given; a cut-off body changes nothing
  if (Number(res.headers['content-length'] ?? 0) > HEADERS_ONLY_DRAIN_BYTES) {
    res.destroy();
    return;
  }
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > HEADERS_ONLY_DRAIN_BYTES) res.destroy();
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
