import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import canonicalize from 'canonicalize';
import { z } from 'zod';

/**
 * ACP order events (openapi.agentic_checkout_webhook.yaml, 2026-04-17): after a completed checkout the
 * seller POSTs `order_create` and `order_update` events, each carrying the whole order (not a delta),
 * signed in the `Merchant-Signature` header as `t=<unix seconds>,v1=<64 hex>`, where v1 is
 * HMAC-SHA256 over `<t>.<raw body>` with the secret shared with the seller. A receiver answers 401
 * when the header is missing or malformed, the timestamp is outside the window (300 s recommended)
 * or the HMAC does not match; it verifies the raw bytes as received, before parsing.
 */

export const ACP_SIGNATURE_TOLERANCE_SECONDS = 300;

export type AcpSignatureCheck =
  | { ok: true; /** The signed timestamp, unix seconds. */ timestamp: number }
  | { ok: false; reason: 'missing' | 'malformed' | 'outside_window' | 'mismatch' };

type HeaderBag = Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies `Merchant-Signature` over the raw body. `secret` is the shared secret as text (its UTF-8
 * bytes are the HMAC key). Several `v1` values are accepted (a seller rotating its secret may sign with
 * both); one matching is enough. The window is checked in both directions (a timestamp from the
 * future is as suspect as an old one).
 */
export function verifyAcpOrderEvent(
  headers: HeaderBag,
  rawBody: string | Buffer,
  secret: string,
  options: { now?: Date; toleranceSeconds?: number } = {},
): AcpSignatureCheck {
  const value = header(headers, 'merchant-signature');
  if (value === undefined || value.trim() === '') return { ok: false, reason: 'missing' };
  let timestamp: number | undefined;
  const signatures: Buffer[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return { ok: false, reason: 'malformed' };
    const key = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(v) || timestamp !== undefined) return { ok: false, reason: 'malformed' };
      timestamp = Number(v);
    } else if (key === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(v)) return { ok: false, reason: 'malformed' };
      signatures.push(Buffer.from(v, 'hex'));
    }
    // Other schemes (a future v2) are ignored, as long as a v1 is there.
  }
  if (timestamp === undefined || signatures.length === 0) return { ok: false, reason: 'malformed' };
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? ACP_SIGNATURE_TOLERANCE_SECONDS)) {
    return { ok: false, reason: 'outside_window' };
  }
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.`)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest();
  const matches = signatures.some((s) => timingSafeEqual(s, expected));
  return matches ? { ok: true, timestamp } : { ok: false, reason: 'mismatch' };
}

export class AcpOrderEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AcpOrderEventError';
  }
}

const timed = z.looseObject({ occurred_at: z.string().optional() });

/** What the gateway reads of an event; the order's other fields stay in `raw`. Order status and types are open strings. */
const orderEvent = z.looseObject({
  type: z.string().min(1),
  data: z.looseObject({
    type: z.string().optional(),
    id: z.string().min(1).optional(),
    checkout_session_id: z.string().min(1),
    permalink_url: z.string().min(1),
    status: z.string().min(1),
    fulfillments: z
      .array(
        z.looseObject({
          carrier: z.string().optional(),
          tracking_number: z.string().optional(),
          tracking_url: z.string().optional(),
          events: z.array(timed).optional(),
        }),
      )
      .optional(),
    adjustments: z.array(timed).optional(),
  }),
});

export interface AcpOrderEvent {
  /**
   * ACP events carry no id of their own: this one is derived from the event's canonical JSON, so a
   * redelivery of the same event de-duplicates and any change to the order makes a new id.
   */
  event_id: string;
  /** `order_create`, `order_update`, or a type a later version adds (kept, not refused). */
  type: string;
  session_id: string;
  /** The seller's order id; null when the seller left it out (the specification's own examples do). */
  order_id: string | null;
  status: string;
  permalink_url: string;
  tracking: Array<{ carrier?: string; number?: string; url?: string }>;
  /**
   * The latest moment the order states (fulfillment events, adjustments); else the verified signature's
   * timestamp when given; else null.
   */
  occurred_at: string | null;
  /** The event as received (parsed JSON). */
  raw: unknown;
}

/**
 * Parses an event body (raw text, bytes or already-parsed JSON); verify the signature over the raw
 * bytes first. `signedAt` is `verifyAcpOrderEvent`'s timestamp. Throws `AcpOrderEventError` for a
 * body that is not an ACP order event.
 */
export function parseAcpOrderEvent(body: unknown, options: { signedAt?: number } = {}): AcpOrderEvent {
  let raw = body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    try {
      raw = JSON.parse(body.toString());
    } catch {
      throw new AcpOrderEventError('the order event is not JSON');
    }
  }
  const parsed = orderEvent.safeParse(raw);
  if (!parsed.success) throw new AcpOrderEventError(`not an ACP order event: ${parsed.error.message.slice(0, 300)}`);
  const { type, data } = parsed.data;
  const tracking = (data.fulfillments ?? [])
    .filter((f) => f.carrier !== undefined || f.tracking_number !== undefined || f.tracking_url !== undefined)
    .map((f) => ({
      ...(f.carrier !== undefined ? { carrier: f.carrier } : {}),
      ...(f.tracking_number !== undefined ? { number: f.tracking_number } : {}),
      ...(f.tracking_url !== undefined ? { url: f.tracking_url } : {}),
    }));
  const moments = [...(data.fulfillments ?? []).flatMap((f) => f.events ?? []), ...(data.adjustments ?? [])]
    .map((e) => (e.occurred_at === undefined ? NaN : Date.parse(e.occurred_at)))
    .filter((t) => Number.isFinite(t));
  let occurredAt: string | null = null;
  if (moments.length > 0) occurredAt = new Date(Math.max(...moments)).toISOString();
  else if (options.signedAt !== undefined) occurredAt = new Date(options.signedAt * 1000).toISOString();
  const digest = createHash('sha256')
    .update(canonicalize(raw) ?? '')
    .digest('hex');
  return {
    event_id: `acp_evt_${digest.slice(0, 32)}`,
    type,
    session_id: data.checkout_session_id,
    order_id: data.id ?? null,
    status: data.status,
    permalink_url: data.permalink_url,
    tracking,
    occurred_at: occurredAt,
    raw,
  };
}
