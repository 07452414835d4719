import type { IncomingHttpHeaders } from 'node:http';
import type { JWK } from 'jose';
import { z } from 'zod';
import { parseUcpAgent, verifyDetachedJws, verifyHttpMessage, type SignatureFailure } from './signing';
import { withoutNulls } from './without-nulls';

/**
 * Order events a UCP business POSTs to the gateway's webhook (order.md, "Order Event Webhook"): the
 * body is the whole current order (never a delta), signed by the business with a key of its profile.
 * 2026-04-08 signs the request the RFC 9421 way (`Signature-Input`, `Signature`, `Content-Digest`,
 * `UCP-Agent` naming the business's profile) and carries Standard Webhooks `Webhook-Id` and
 * `Webhook-Timestamp`; 2026-01-11 signed the body with a detached JWS in `Request-Signature` and carried
 * `event_id` and `created_time` in the body. An order has no status field: its state is read from its
 * fulfillment events and adjustments, the latest one deciding.
 */

export type UcpOrderStatus = 'placed' | 'processing' | 'shipped' | 'delivered' | 'canceled' | 'refunded' | 'returned';

export interface UcpOrderEvent {
  event_id: string;
  /** The business's checkout session id the order came from (the gateway's session reference). */
  checkout_id: string;
  order_id: string;
  status: UcpOrderStatus;
  tracking: Array<{ carrier?: string; number?: string; url?: string }>;
  /** RFC 3339. */
  occurred_at: string;
  permalink_url: string | null;
  raw: Record<string, unknown>;
}

export type UcpOrderEventCheck =
  | { ok: true; kid: string; scheme: 'rfc9421' | 'jws-detached' }
  | { ok: false; code: SignatureFailure | 'profile_mismatch'; message: string };

/** What verification needs of the business: its signing keys (the discovery summary or the raw profile). */
export interface UcpEventSigner {
  signing_keys?: JWK[];
  /** The business's profile URL, when known: the event's `UCP-Agent` must name the same origin. */
  profile_url?: string;
  version?: string;
}

const header = (headers: IncomingHttpHeaders | Record<string, string | undefined>, name: string): string | undefined => {
  const v = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

/**
 * Verifies an order event the business signed. `target` is how the gateway received it (method and
 * path as the business addressed it; `@authority` is read from the `Host` header). The RFC 9421
 * signature must cover method, authority, path and the body digest.
 */
export async function verifyUcpOrderEvent(
  headers: IncomingHttpHeaders | Record<string, string | undefined>,
  rawBody: Buffer | string,
  businessProfile: UcpEventSigner,
  target: { method?: string; path?: string } = {},
): Promise<UcpOrderEventCheck> {
  const keys = businessProfile.signing_keys ?? [];
  const agent = parseUcpAgent(header(headers, 'ucp-agent'));
  if (agent && businessProfile.profile_url) {
    let same: boolean;
    try {
      same = new URL(agent).origin === new URL(businessProfile.profile_url).origin;
    } catch {
      same = false;
    }
    if (!same) {
      return {
        ok: false,
        code: 'profile_mismatch',
        message: `the event names profile ${agent}, not the business's ${businessProfile.profile_url}`,
      };
    }
  }
  if (header(headers, 'signature-input') || header(headers, 'signature')) {
    const check = verifyHttpMessage(
      {
        method: target.method ?? 'POST',
        authority: header(headers, 'host') ?? '',
        path: target.path ?? '/ucp/webhooks/orders',
        headers: headers as Record<string, string | string[] | undefined>,
      },
      typeof rawBody === 'string' ? Buffer.from(rawBody) : rawBody,
      keys,
      ['@method', '@authority', '@path'],
    );
    return check.ok ? { ok: true, kid: check.kid, scheme: 'rfc9421' } : { ok: false, code: check.code, message: check.message };
  }
  const jws = header(headers, 'request-signature');
  if (jws) {
    const check = await verifyDetachedJws(jws, rawBody, keys);
    return check.ok ? { ok: true, kid: check.kid, scheme: 'jws-detached' } : { ok: false, code: check.code, message: check.message };
  }
  return {
    ok: false,
    code: 'signature_missing',
    message: 'the order event carries no signature (Signature-Input/Signature or Request-Signature)',
  };
}

const Order = z.looseObject({
  id: z.string().min(1),
  checkout_id: z.string().min(1),
  permalink_url: z.string().optional(),
  event_id: z.string().optional(),
  created_time: z.string().optional(),
  fulfillment: z
    .looseObject({
      events: z
        .array(
          z.looseObject({
            id: z.string().optional(),
            type: z.string(),
            occurred_at: z.string(),
            tracking_number: z.string().optional(),
            tracking_url: z.string().optional(),
            carrier: z.string().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  adjustments: z.array(z.looseObject({ type: z.string(), occurred_at: z.string(), status: z.string().optional() })).optional(),
  line_items: z
    .array(z.looseObject({ status: z.string().optional(), quantity: z.looseObject({ total: z.number().optional() }).optional() }))
    .optional(),
});

export class UcpOrderEventInvalid extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UcpOrderEventInvalid';
  }
}

const FULFILLMENT_STATUS: Record<string, UcpOrderStatus> = {
  processing: 'processing',
  shipped: 'shipped',
  in_transit: 'shipped',
  out_for_delivery: 'shipped',
  delivered: 'delivered',
  canceled: 'canceled',
  cancelled: 'canceled',
  returned_to_sender: 'returned',
};
const ADJUSTMENT_STATUS: Record<string, UcpOrderStatus> = {
  refund: 'refunded',
  cancellation: 'canceled',
  cancel: 'canceled',
  return: 'returned',
};

/**
 * Reads an order event body. `headers` (optional) supplies `Webhook-Id` / `Webhook-Timestamp`, where
 * 2026-04-08 puts the event's identity; the body's own `event_id` / `created_time` (2026-01-11) win when
 * present. Throws `UcpOrderEventInvalid` for a body that is not an order.
 */
export function parseUcpOrderEvent(body: unknown, headers: IncomingHttpHeaders | Record<string, string | undefined> = {}): UcpOrderEvent {
  const raw = typeof body === 'string' || Buffer.isBuffer(body) ? safeJson(body.toString()) : body;
  const parsed = Order.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UcpOrderEventInvalid(`not a UCP order: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  const o = parsed.data;
  // Each fulfillment event and adjustment that changes the order's state, latest last.
  const steps: Array<{ at: string; status: UcpOrderStatus }> = [
    ...(o.fulfillment?.events ?? []).flatMap((e) =>
      FULFILLMENT_STATUS[e.type] ? [{ at: e.occurred_at, status: FULFILLMENT_STATUS[e.type]! }] : [],
    ),
    ...(o.adjustments ?? [])
      .filter((a) => a.status !== 'failed')
      .flatMap((a) => (ADJUSTMENT_STATUS[a.type] ? [{ at: a.occurred_at, status: ADJUSTMENT_STATUS[a.type]! }] : [])),
  ].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  let status: UcpOrderStatus = steps.at(-1)?.status ?? 'placed';
  const lines = o.line_items ?? [];
  if (steps.length === 0 && lines.length > 0 && lines.every((l) => l.status === 'removed' || l.quantity?.total === 0)) status = 'canceled';
  const tracking = (o.fulfillment?.events ?? [])
    .filter((e) => e.tracking_number || e.tracking_url)
    .map((e) => ({
      ...(e.carrier ? { carrier: e.carrier } : {}),
      ...(e.tracking_number ? { number: e.tracking_number } : {}),
      ...(e.tracking_url ? { url: e.tracking_url } : {}),
    }));
  const webhookTs = Number(header(headers, 'webhook-timestamp'));
  const occurred_at =
    o.created_time ??
    (Number.isFinite(webhookTs) && webhookTs > 0 ? new Date(webhookTs * 1000).toISOString() : undefined) ??
    steps.at(-1)?.at ??
    new Date().toISOString();
  const event_id = o.event_id ?? header(headers, 'webhook-id') ?? `${o.id}:${status}:${occurred_at}`;
  return {
    event_id,
    checkout_id: o.checkout_id,
    order_id: o.id,
    status,
    tracking,
    occurred_at,
    permalink_url: o.permalink_url ?? null,
    raw: raw as Record<string, unknown>,
  };
}

function safeJson(text: string): unknown {
  try {
    return withoutNulls(JSON.parse(text));
  } catch {
    throw new UcpOrderEventInvalid('the order event body is not JSON');
  }
}
