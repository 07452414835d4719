import { createHash, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { boundedRequest, OutboundError } from '../../outbound/http';
import { endpointPolicy } from '../../registry/endpoint-safety';
import type { UcpBusinessSummary } from './discovery';
import { platformProfileUrlFor } from './platform-profile';
import { contentDigest, signDetachedJws, signHttpMessage, ucpAgentHeader, type UcpSigner } from './signing';
import { withoutNulls } from './without-nulls';

/**
 * One HTTP exchange with a UCP business's REST binding (checkout-rest.md, "HTTP Headers"): every call
 * carries `UCP-Agent` (the gateway's platform profile for the negotiated version), a fresh `Request-Id`,
 * and for state-changing calls an `Idempotency-Key` derived from the gateway checkout and the step, so an
 * activity that retries sends the same key and the business answers its stored result instead of acting
 * twice. Requests are signed the way the business takes part in signatures (`request_signing` of its
 * summary). 2xx and 4xx come back as answers; everything that may pass on a retry throws a retryable
 * `UcpCallError`.
 */

export interface UcpClientDeps {
  allowPrivateEndpoints: boolean;
  timeoutMs: number;
  /** The gateway's platform profile URL (the 2026-04-08 one; see `platformProfileUrlFor`). */
  platformProfileUrl: string;
  /** The gateway's UCP signing key; without it requests go unsigned. */
  signer?: UcpSigner;
  /** A bearer credential the business issued to the platform (REST binding `Authorization`); none by default. */
  bearer?: string;
}

/** Largest answer read from a business. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

export type UcpStep = 'create' | `update:${number}` | 'complete' | 'cancel';

/** Fixed namespace for the name-based keys below (any constant UUID works; this one is ours). */
const IDEMPOTENCY_NAMESPACE = Buffer.from('5f0c1e1a7d3b4c8e9a2f6b1d3e5c7a90', 'hex');

/**
 * The `Idempotency-Key` of one step of one gateway checkout: a name-based (version 5) UUID of
 * `<checkout_id>:<step>`. The REST binding declares the header a UUID; deriving it from the name keeps
 * it the same on every retry of the step and different for every other step or checkout.
 */
export function ucpIdempotencyKey(checkoutId: string, step: UcpStep): string {
  const h = createHash('sha1').update(IDEMPOTENCY_NAMESPACE).update(`${checkoutId}:${step}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** A call that did not get an answer the adapter can act on. `retryable`: the same request may pass later. */
export class UcpCallError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'UcpCallError';
  }
}

export interface UcpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; null when there was none or it was not JSON. */
  body: unknown;
  raw: Buffer;
}

export interface UcpRequest {
  method: 'GET' | 'POST' | 'PUT';
  /** Path under the business's REST endpoint (`/checkout-sessions`, …). */
  path: string;
  body?: unknown;
  idempotencyKey?: string;
}

/** The headers (including signature headers) one request is sent with. Exported for tests and logs. */
export async function ucpRequestHeaders(
  deps: UcpClientDeps,
  business: UcpBusinessSummary,
  url: URL,
  req: UcpRequest,
  bodyText: string | undefined,
): Promise<Record<string, string>> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'ucp-agent': ucpAgentHeader(platformProfileUrlFor(deps.platformProfileUrl, business.version)),
    'request-id': randomUUID(),
  };
  if (deps.bearer) headers.authorization = `Bearer ${deps.bearer}`;
  if (req.idempotencyKey) headers['idempotency-key'] = req.idempotencyKey;
  if (bodyText !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-digest'] = contentDigest(bodyText);
  }
  if (deps.signer && business.request_signing === 'rfc9421') {
    Object.assign(
      headers,
      signHttpMessage(deps.signer, {
        method: req.method,
        authority: url.host,
        path: url.pathname,
        query: url.search.replace(/^\?/, ''),
        headers,
      }),
    );
  } else if (deps.signer && business.request_signing === 'jws-detached') {
    headers['request-signature'] = await signDetachedJws(deps.signer, bodyText ?? '');
  }
  return headers;
}

export async function ucpCall(deps: UcpClientDeps, business: UcpBusinessSummary, req: UcpRequest): Promise<UcpAnswer> {
  const url = new URL(`${business.rest_endpoint}${req.path}`);
  const bodyText = req.body === undefined ? undefined : JSON.stringify(req.body);
  const headers = await ucpRequestHeaders(deps, business, url, req, bodyText);
  let res;
  try {
    res = await boundedRequest(url.toString(), {
      method: req.method,
      timeoutMs: deps.timeoutMs,
      maxBytes: MAX_ANSWER_BYTES,
      maxRedirects: 0,
      policy: endpointPolicy(deps.allowPrivateEndpoints),
      headers,
      ...(bodyText !== undefined ? { body: bodyText } : {}),
    });
  } catch (err) {
    if (err instanceof OutboundError) {
      // An endpoint the gateway may not call, or an answer too large to read, stays so on a retry.
      const retryable = err.reason !== 'unsafe_endpoint' && err.reason !== 'too_large';
      throw new UcpCallError(`${req.method} ${req.path}: ${err.reason}: ${err.message}`, retryable);
    }
    throw err;
  }
  const what = `${req.method} ${req.path} answered HTTP ${res.status}`;
  if (res.status >= 500 || res.status === 408 || res.status === 429) throw new UcpCallError(what, true, res.status);
  if (res.status < 200 || (res.status >= 300 && res.status < 400)) throw new UcpCallError(what, false, res.status);
  let body: unknown = null;
  if (res.body.length > 0) {
    try {
      body = withoutNulls(JSON.parse(res.body.toString('utf8')));
    } catch {
      // A 2xx must carry the resource; a 4xx without JSON is still a refusal with its status.
      if (res.status < 300) throw new UcpCallError(`${what} with a body that is not JSON`, true, res.status);
    }
  }
  return { status: res.status, headers: res.headers, body, raw: res.body };
}
