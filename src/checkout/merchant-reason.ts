import type { IncomingHttpHeaders } from 'node:http';
import type { AuditEntry } from '../db/schema-checkout';

/**
 * The merchant's own reason for refusing an order ("Sorry, this item just sold out."), as the gateway
 * passes it on to the buyer's agent (docs/CHECKOUT.md, "Failure and compensation"): plain text, at
 * most MERCHANT_REASON_MAX characters, control and direction-override characters removed, blanks
 * collapsed. Whatever the merchant sent is data for a human or a model to read, never markup: an
 * HTML page is no reason.
 */

export const MERCHANT_REASON_MAX = 500;

// C0 and C1 controls (tab and newlines become blanks first), DEL, and the bidirectional overrides and
// isolates that can make a text read otherwise than it is.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The text as the gateway passes it on (null when nothing readable is left). */
export function boundedReason(text: string | null | undefined): string | null {
  if (typeof text !== 'string') return null;
  const clean = text
    .replace(/[\t\n\v\f\r]+/g, ' ')
    .replace(CONTROL, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (!clean) return null;
  if (clean.length <= MERCHANT_REASON_MAX) return clean;
  // Cut at a code point, not inside a surrogate pair.
  return `${Array.from(clean.slice(0, MERCHANT_REASON_MAX))
    .slice(0, MERCHANT_REASON_MAX - 1)
    .join('')}…`;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

/** The reason in a JSON answer: the members merchants put it in, most specific first. */
function reasonInJson(v: unknown): string | undefined {
  if (typeof v === 'string') return str(v);
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const b = v as Record<string, unknown>;
  const nested = (x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? reasonInJson(x) : undefined);
  const firstOf = (x: unknown) => (Array.isArray(x) && x.length ? (str(x[0]) ?? nested(x[0])) : undefined);
  return (
    str(b.message) ??
    str(b.reason) ??
    str(b.detail) ??
    str(b.content) ??
    str(b.error_description) ??
    nested(b.error) ??
    firstOf(b.messages) ??
    firstOf(b.errors) ??
    str(b.error) ??
    str(b.title)
  );
}

/**
 * The reason a webhook merchant gave with its refusal (a 4xx): the body's message when it is JSON,
 * the body itself when it is plain text; null for an empty body, HTML, or anything else.
 */
export function reasonFromBody(body: Buffer, headers: IncomingHttpHeaders): string | null {
  const text = body.toString('utf8').trim();
  if (!text) return null;
  const type = String(headers['content-type'] ?? '').toLowerCase();
  if (type.includes('json') || /^[{["]/.test(text)) {
    try {
      return boundedReason(reasonInJson(JSON.parse(text)));
    } catch {
      // Not JSON after all: read as text below.
    }
  }
  if (type.includes('html') || /^<(!doctype|html|\?xml|[a-z]+[\s>])/i.test(text)) return null;
  if (type && !type.startsWith('text/plain') && !type.includes('json')) return null;
  return boundedReason(text);
}

/**
 * The merchant's reason as the audit trail recorded it: the last refused handoff attempt's `reason`
 * (webhook merchants) or the refused completion's `message` (UCP/ACP). Null when the merchant gave none.
 */
export function merchantReasonOf(audit: readonly AuditEntry[]): string | null {
  for (let i = audit.length - 1; i >= 0; i--) {
    const e = audit[i]!;
    const d = e.detail ?? {};
    if (e.step.startsWith('merchant_handoff_attempt_') && typeof d.reason === 'string') return boundedReason(d.reason);
    if (e.step === 'merchant_session_complete' && e.outcome === 'refused' && typeof d.message === 'string') return boundedReason(d.message);
  }
  return null;
}
