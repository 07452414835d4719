import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { boundedRequest, OutboundError, type OutboundFailure } from '../../outbound/http';
import { endpointPolicy } from '../../registry/endpoint-safety';
import { ACP_API_VERSION, acpCheckoutSession, acpError, type AcpCheckoutSession, type AcpError } from './wire';

/**
 * The agent side of ACP's HTTP surface (seller checkout sessions, PSP delegate_payment): every call
 * goes through the bounded outbound client (endpoint safety on every connection, one deadline, a
 * body cap, no redirects) with the protocol's headers, and every answer is sorted into what the same
 * request would get again (returned) and what may pass on a retry (thrown, retryable).
 */

export interface AcpClientDeps {
  allowPrivateEndpoints: boolean;
  /** One deadline for each whole exchange (connect, send, answer). */
  timeoutMs: number;
  /** Largest answer read; a session with many line items and options stays far below the default. */
  maxBytes?: number;
}

export const ACP_DEFAULT_MAX_BYTES = 2 * 1024 * 1024;

/** Why a call has no answer the caller can act on. */
export type AcpFailureReason = OutboundFailure | 'retryable_status' | 'bad_answer' | 'unauthorized';

/**
 * A call that ended without an answer to map. `retryable`: the same request (same Idempotency-Key,
 * same body) may pass later (5xx, 408, 429, 409 idempotency_in_flight, a timeout, unreachable).
 * Not retryable: the endpoint is unsafe, the answer was too large or not what the protocol describes.
 */
export class AcpRequestError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly reason: AcpFailureReason,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'AcpRequestError';
  }
}

export interface AcpHttpCall {
  method: 'GET' | 'POST';
  url: string;
  /** The bearer credential (seller-issued for checkout, the agent's PSP key for delegate_payment). */
  bearer: string | null;
  /** Required by ACP on every POST; derived by the caller from its own ids so a retry reuses it. */
  idempotencyKey?: string;
  body?: unknown;
}

export interface AcpHttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when the body was empty or not JSON. */
  json: unknown;
  text: string;
  /** The server answered a stored response for this Idempotency-Key (`Idempotent-Replayed: true`). */
  replayed: boolean;
}

/** Statuses the same request may pass on later: server trouble, a deadline, rate limiting. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

const snippet = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

/**
 * Sends one ACP request. Returns every 2xx and every 4xx the same request would get again; throws
 * `AcpRequestError` (retryable) for 5xx, 408, 429, an in-flight 409 and no answer at all.
 */
export async function acpHttp(deps: AcpClientDeps, call: AcpHttpCall): Promise<AcpHttpAnswer> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'api-version': ACP_API_VERSION,
    // Correlation only: a fresh id per attempt, while the Idempotency-Key stays the same across retries.
    'request-id': `req_${randomUUID()}`,
    timestamp: new Date().toISOString(),
  };
  if (call.bearer) headers.authorization = `Bearer ${call.bearer}`;
  if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
  let body: string | undefined;
  if (call.body !== undefined) {
    body = JSON.stringify(call.body);
    headers['content-type'] = 'application/json';
  }
  let res;
  try {
    res = await boundedRequest(call.url, {
      method: call.method,
      headers,
      body,
      timeoutMs: deps.timeoutMs,
      maxBytes: deps.maxBytes ?? ACP_DEFAULT_MAX_BYTES,
      maxRedirects: 0,
      policy: endpointPolicy(deps.allowPrivateEndpoints),
    });
  } catch (err) {
    if (err instanceof OutboundError) {
      // An unsafe endpoint or an oversized answer stays so on a retry; a timeout or a refused
      // connection may not (the request is then sent again under the same Idempotency-Key).
      const retryable = err.reason === 'timeout' || err.reason === 'unreachable';
      throw new AcpRequestError(`${call.method} ${call.url}: ${err.message}`, retryable, err.reason, null);
    }
    throw err;
  }
  const text = res.body.toString('utf8');
  let json: unknown;
  try {
    json = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (isRetryableStatus(res.status)) {
    const error = acpError.safeParse(json);
    const why = error.success ? `${error.data.code}: ${error.data.message}` : snippet(text);
    throw new AcpRequestError(`${call.method} ${call.url} answered ${res.status} (${why})`, true, 'retryable_status', res.status);
  }
  if (res.status === 409) {
    // The same key is still being processed by the seller: the first attempt's answer is not known
    // yet, so this attempt must be retried (RFC: honour Retry-After), never treated as a refusal.
    const error = acpError.safeParse(json);
    if (error.success && error.data.code === 'idempotency_in_flight') {
      throw new AcpRequestError(`${call.method} ${call.url}: ${error.data.message}`, true, 'retryable_status', 409);
    }
  }
  if (res.status < 200 || (res.status >= 300 && res.status < 400)) {
    throw new AcpRequestError(`${call.method} ${call.url} answered ${res.status}, which ACP does not use`, false, 'bad_answer', res.status);
  }
  const replayed = String(res.headers['idempotent-replayed'] ?? '').toLowerCase() === 'true';
  return { status: res.status, headers: res.headers, json, text, replayed };
}

/** The seller's answer to a checkout session call, once it is one the same request gets again. */
export type AcpSessionAnswer =
  { kind: 'session'; status: number; session: AcpCheckoutSession; replayed: boolean } | { kind: 'error'; status: number; error: AcpError };

/** What the adapter needs of a merchant to call it. */
export interface AcpSeller {
  /** The seller's ACP base URL (the paths below are appended to it). */
  endpoint: string;
  /** The bearer credential the seller issued to the agent. */
  credential: string | null;
}

const base = (endpoint: string) => endpoint.replace(/\/+$/, '');

export const acpPaths = {
  create: (s: AcpSeller) => `${base(s.endpoint)}/checkout_sessions`,
  session: (s: AcpSeller, id: string) => `${base(s.endpoint)}/checkout_sessions/${encodeURIComponent(id)}`,
  complete: (s: AcpSeller, id: string) => `${base(s.endpoint)}/checkout_sessions/${encodeURIComponent(id)}/complete`,
  cancel: (s: AcpSeller, id: string) => `${base(s.endpoint)}/checkout_sessions/${encodeURIComponent(id)}/cancel`,
};

/**
 * One checkout session call. A 2xx must carry a session (the authoritative cart state every
 * endpoint returns); a 4xx is returned as the seller's flat error (a body that is not one becomes an
 * `http_<status>` error with the body's start as its message, so the seller's words still reach
 * the buyer).
 */
export async function acpSessionCall(
  deps: AcpClientDeps,
  seller: AcpSeller,
  call: { method: 'GET' | 'POST'; url: string; idempotencyKey?: string; body?: unknown },
): Promise<AcpSessionAnswer> {
  const answer = await acpHttp(deps, { ...call, bearer: seller.credential });
  if (answer.status < 300) {
    const session = acpCheckoutSession.safeParse(answer.json);
    if (!session.success) {
      // Retrying may help (a proxy's page in front of the seller); a replayed stored answer, or the
      // key's answer after a retry, is what tells. Kept retryable so a placed order is never lost.
      throw new AcpRequestError(
        `${call.method} ${call.url} answered ${answer.status} without a checkout session: ${snippet(session.error.message)}`,
        true,
        'bad_answer',
        answer.status,
      );
    }
    return { kind: 'session', status: answer.status, session: session.data, replayed: answer.replayed };
  }
  const error = acpError.safeParse(answer.json);
  return {
    kind: 'error',
    status: answer.status,
    error: error.success
      ? error.data
      : { type: 'invalid_request', code: `http_${answer.status}`, message: snippet(answer.text) || `HTTP ${answer.status}` },
  };
}
