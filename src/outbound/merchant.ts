import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { endpointPolicy } from '../registry/endpoint-safety';
import { openWebhookSecret } from '../registry/secrets';
import { boundedRequest, OutboundError, type OutboundFailure } from './http';

/**
 * The one way the gateway calls a merchant's agent endpoint: Intent.Surge deliveries
 * (src/dispatch/attempt.ts), the checkout handoff (src/checkout/checkouts.ts) and the commerce
 * runtime's merchant queries (src/runtime/merchant-query.ts). It signs the body the Standard Webhooks
 * way (docs/DISPATCH.md), sends it with one deadline through the bounded outbound client (endpoint
 * safety on every hop, no redirects), and classifies the answer; what an answer means for the flow
 * (retry, dead-letter, record a failed step) stays with the caller.
 */

export interface MerchantCallDeps {
  allowPrivateEndpoints: boolean;
}

export interface MerchantCall {
  endpoint: string;
  /** `webhook-id`: the id the merchant de-duplicates and verifies the signature with. */
  messageId: string;
  body: string;
  /** The merchant's webhook secret (opened); null sends the call unsigned. */
  secret: string | null;
  headers?: Record<string, string>;
  timeoutMs: number;
  /** Largest answer body read; 0 with `headersOnly` for calls whose body nobody reads. */
  maxBytes: number;
  headersOnly?: boolean;
}

/**
 * - `accepted`: 2xx.
 * - `refused`: a 4xx other than 408/429; the same request will get the same answer.
 * - `failed`: anything else (3xx, 408, 429, 5xx, no answer in time, unreachable, too large); may pass later.
 * - `unsafe`: the endpoint resolves to an address the gateway does not call; no retry changes that.
 */
export type MerchantOutcome = 'accepted' | 'refused' | 'failed' | 'unsafe';

export interface MerchantAnswer {
  outcome: MerchantOutcome;
  /** The HTTP status; null when there was no answer. */
  status: number | null;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Why there was no answer (`timeout`, `unreachable`, …), with its message; null when there was one. */
  failure: { reason: OutboundFailure; message: string } | null;
  latencyMs: number;
}

/** The merchant's webhook secret, or null when this process cannot open it (sealed under another key). */
export function merchantSecretOrNull(keyEncryptionKey: Buffer | undefined, merchantId: string, sealed: string): string | null {
  try {
    return openWebhookSecret(keyEncryptionKey, merchantId, sealed);
  } catch {
    return null;
  }
}

/** `Standard Webhooks` headers for one message. */
export function signatureHeaders(secret: string, messageId: string, body: string, at = new Date()): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, at, body),
  };
}

export function classifyStatus(status: number): MerchantOutcome {
  if (status >= 200 && status < 300) return 'accepted';
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) return 'refused';
  return 'failed';
}

/** Signs, sends and classifies one call (never throws for the merchant's side: only for a fault of ours). */
export async function callMerchant(deps: MerchantCallDeps, call: MerchantCall): Promise<MerchantAnswer> {
  const started = performance.now();
  const headers: Record<string, string> = { 'content-type': 'application/json', ...call.headers };
  if (call.secret !== null) Object.assign(headers, signatureHeaders(call.secret, call.messageId, call.body));
  try {
    const res = await boundedRequest(call.endpoint, {
      method: 'POST',
      body: call.body,
      headers,
      timeoutMs: call.timeoutMs,
      maxBytes: call.maxBytes,
      headersOnly: call.headersOnly,
      maxRedirects: 0,
      policy: endpointPolicy(deps.allowPrivateEndpoints),
    });
    const latencyMs = Math.round(performance.now() - started);
    return { outcome: classifyStatus(res.status), status: res.status, headers: res.headers, body: res.body, failure: null, latencyMs };
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    return {
      outcome: err.reason === 'unsafe_endpoint' ? 'unsafe' : 'failed',
      status: null,
      headers: {},
      body: Buffer.alloc(0),
      failure: { reason: err.reason, message: err.message },
      latencyMs: Math.round(performance.now() - started),
    };
  }
}
