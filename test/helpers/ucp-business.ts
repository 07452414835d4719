import { createHash, createPublicKey, generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import http from 'node:http';
import { FlattenedSign, flattenedVerify, type JWK } from 'jose';
import { ucpSchemas, type UcpOp, type UcpSchemaVersion } from './ucp-schemas';

/**
 * A real UCP business on 127.0.0.1 (an ephemeral port) for the platform client's tests, speaking the
 * REST binding of one version (2026-04-08 or 2026-01-11) for a configurable catalog:
 * `/.well-known/ucp` with its signing keys and payment handlers (a test handler among them), checkout
 * sessions (create, get, update, complete, cancel) with fulfillment (one shipping group, three options)
 * and tax, catalog search (2026-04-08), and signed order events to a webhook.
 *
 * It behaves like a careful business: every request body it receives and every body it sends is
 * validated with Ajv against the official schemas of its version (`validationErrors`; tests assert none),
 * as are the required headers; state-changing requests are de-duplicated by `Idempotency-Key` (the same
 * key and body answer the stored response, another body 409), so a retried completion places one order.
 * It can be told to fail (5xx n times, then recover), to lose or hold the answer after acting, to hang, to
 * decline payment, to run out of stock, to change a price, and to require escalation.
 *
 * Its signature checks and webhook signing are written here on their own (node:crypto and jose), not
 * with the gateway's code, so they check the gateway's signatures rather than agree with them.
 */

export interface CatalogEntry {
  id: string;
  title: string;
  /** Minor units. */
  price: number;
  stock?: number;
  image_url?: string;
}

export type BusinessOp = 'create' | 'get' | 'update' | 'complete' | 'cancel' | 'search' | 'profile';

export interface UcpBusinessOptions {
  version: UcpSchemaVersion;
  catalog: CatalogEntry[];
  currency?: string;
  /** Tax in basis points of the subtotal (800: 8%). */
  taxBps?: number;
  /** Refuse requests without a valid signature of the platform (its keys read from the UCP-Agent profile). */
  requireSignedRequests?: boolean;
  /** Declare and serve catalog search (2026-04-08). */
  catalogSearch?: boolean;
  /** Rewrites the profile before it is served (an unsupported version, a `supported_versions` map, …). */
  profile?: (p: Record<string, unknown>, business: UcpBusiness) => Record<string, unknown>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

interface Destination {
  id: string;
  [k: string]: unknown;
}
interface Group {
  id: string;
  selected_option_id: string | null;
}
interface Method {
  id: string;
  type: 'shipping';
  destinations: Destination[];
  selected_destination_id: string | null;
  groups: Group[];
}
interface Session {
  id: string;
  status: string;
  currency: string;
  lines: Array<{ id: string; item_id: string; quantity: number }>;
  buyer: Record<string, unknown> | null;
  method: Method | null;
  order: { id: string; permalink_url: string } | null;
  escalated: boolean;
  declined: string | null;
}
interface Order {
  id: string;
  checkout_id: string;
  lines: Array<{ id: string; item_id: string; quantity: number; price: number; title: string }>;
  destination: Record<string, unknown> | null;
  shipping: number;
  tax: number;
  events: Array<Record<string, unknown>>;
  adjustments: Array<Record<string, unknown>>;
  canceled: boolean;
}

/** The options of the one shipping group; the cheapest is deliberately not the first. */
export const SHIPPING_OPTIONS = [
  { id: 'express', title: 'Express', amount: 1500 },
  { id: 'standard', title: 'Standard', amount: 500 },
  { id: 'courier', title: 'Courier', amount: 900 },
];

export const MOCK_HANDLER = { id: 'mock_payment_handler', name: 'com.example.mock_payment' };
export const GPAY_HANDLER = { id: 'gpay_1234', name: 'com.google.pay' };
export const TOKEN_OK = 'tok_success';
export const TOKEN_DECLINE = 'tok_decline';

export interface UcpBusiness {
  url: string;
  /** The REST endpoint the profile declares (`{url}/ucp`). */
  endpoint: string;
  version: UcpSchemaVersion;
  kid: string;
  publicJwk: JWK;
  requests: RecordedRequest[];
  validationErrors: string[];
  signatureErrors: string[];
  /** Requests per `METHOD path` (path with session ids as `{id}`). */
  count(methodAndPath: string): number;
  /** Requests that carried this Idempotency-Key. */
  keyCount(key: string): number;
  /** Requests answered from the idempotency store instead of being processed again. */
  replays: number;
  ordersPlaced(): number;
  failNext(op: BusinessOp, times: number, status?: number): void;
  /** Act on the next `times` requests of `op`, then answer 500 as if the answer were lost. */
  loseAnswerAfterActing(op: BusinessOp, times: number): void;
  hangNext(op: BusinessOp, times?: number): void;
  /** Act on the next `times` requests of `op` (the result stored under its Idempotency-Key), then never answer. */
  holdAnswerAfterActing(op: BusinessOp, times?: number): void;
  setPrice(itemId: string, price: number): void;
  setStock(itemId: string, stock: number): void;
  declineAllPayments(on: boolean): void;
  requireEscalation(continueUrl: string | null): void;
  /** POSTs a signed order event (the whole order) to `webhookUrl`; returns the webhook's status. */
  sendOrderEvent(
    orderId: string,
    kind: 'placed' | 'shipped' | 'canceled' | 'refunded',
    webhookUrl: string,
    opts?: { tamperBody?: boolean; wrongKey?: boolean; unsigned?: boolean },
  ): Promise<{ status: number; eventId: string }>;
  close(): Promise<void>;
}

const SPEC = 'https://ucp.dev';

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RFC 9421 verification, written independently of src/protocols/ucp/signing.ts. */
function verifyRfc9421(req: { method: string; path: string; headers: http.IncomingHttpHeaders }, body: Buffer, keys: JWK[]): string | null {
  const input = String(req.headers['signature-input'] ?? '');
  const sig = String(req.headers.signature ?? '');
  const m = /^([a-z0-9_-]+)=(\([^)]*\)[^,]*)$/.exec(input.trim());
  if (!m) return 'no Signature-Input';
  const label = m[1]!;
  const params = m[2]!;
  const sm = new RegExp(`${label}=:([^:]+):`).exec(sig);
  if (!sm) return 'no Signature';
  const components = [...params.slice(1, params.indexOf(')')).matchAll(/"([^"]+)"/g)].map((x) => x[1]!);
  for (const needed of ['@method', '@authority', '@path']) if (!components.includes(needed)) return `signature does not cover ${needed}`;
  if (body.length && !components.includes('content-digest')) return 'signature does not cover content-digest';
  if (req.headers['idempotency-key'] && !components.includes('idempotency-key')) return 'signature does not cover idempotency-key';
  if (components.includes('content-digest')) {
    const want = `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
    if (req.headers['content-digest'] !== want) return 'content digest mismatch';
  }
  const kid = /;keyid="([^"]+)"/.exec(params)?.[1];
  const jwk = keys.find((k) => k.kid === kid);
  if (!jwk) return `unknown keyid ${kid}`;
  const url = new URL(req.path, 'http://x');
  const line = (c: string) => {
    if (c === '@method') return req.method;
    if (c === '@authority') return String(req.headers.host).toLowerCase();
    if (c === '@path') return url.pathname;
    if (c === '@query') return url.search;
    return String(req.headers[c] ?? '');
  };
  const base = [...components.map((c) => `"${c}": ${line(c)}`), `"@signature-params": ${params}`].join('\n');
  const ok = verify(
    jwk.crv === 'P-384' ? 'sha384' : 'sha256',
    Buffer.from(base),
    { key: createPublicKey({ key: jwk as never, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(sm[1]!, 'base64'),
  );
  return ok ? null : 'signature does not verify';
}

export async function startUcpBusiness(opts: UcpBusinessOptions): Promise<UcpBusiness> {
  const v = opts.version;
  const schemas = ucpSchemas(v);
  const currency = opts.currency ?? 'USD';
  const taxBps = opts.taxBps ?? 800;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const wrongKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const kid = `business-${randomUUID().slice(0, 8)}`;
  const publicJwk = { ...(createPublicKey(privateKey).export({ format: 'jwk' }) as JWK), kid, use: 'sig', alg: 'ES256' };
  const catalog = new Map(opts.catalog.map((c) => [c.id, { ...c, stock: c.stock ?? 100 }]));
  const sessions = new Map<string, Session>();
  const orders = new Map<string, Order>();
  const idempotency = new Map<string, { hash: string; status: number; body: string }>();
  const keyCounts = new Map<string, number>();
  const pathCounts = new Map<string, number>();
  const failures = new Map<BusinessOp, { times: number; status: number }>();
  const lose = new Map<BusinessOp, number>();
  const hangs = new Map<BusinessOp, number>();
  const holdsAfterActing = new Map<BusinessOp, number>();
  const hanging: http.ServerResponse[] = [];
  const platformKeys = new Map<string, JWK[]>();
  let declineAll = false;
  let escalation: string | null | undefined;
  let seq = 0;

  const business = {} as UcpBusiness;
  const requests: RecordedRequest[] = [];
  const validationErrors: string[] = [];
  const signatureErrors: string[] = [];

  const checkoutRef =
    v === '2026-04-08'
      ? 'https://ucp.dev/schemas/shopping/fulfillment.json#/$defs/dev.ucp.shopping.checkout'
      : 'https://ucp.dev/schemas/shopping/fulfillment.json#/$defs/checkout';
  const check = (what: string, errors: string[]) => {
    for (const e of errors) validationErrors.push(`${what}: ${e}`);
  };

  const handlers0111 = [
    {
      id: MOCK_HANDLER.id,
      name: MOCK_HANDLER.name,
      version: '2026-01-11',
      spec: 'https://example.com/ucp/mock-payment',
      config_schema: 'https://example.com/ucp/mock-payment/config.json',
      instrument_schemas: ['https://example.com/ucp/mock-payment/instrument.json'],
      config: { environment: 'TEST' },
    },
    {
      id: GPAY_HANDLER.id,
      name: GPAY_HANDLER.name,
      version: '2026-01-11',
      spec: 'https://pay.google.com/gp/p/ucp/2026-01-11/',
      config_schema: 'https://pay.google.com/gp/p/ucp/2026-01-11/schemas/config.json',
      instrument_schemas: ['https://pay.google.com/gp/p/ucp/2026-01-11/schemas/card_payment_instrument.json'],
      config: { environment: 'TEST' },
    },
  ];
  const handlers0408 = {
    [MOCK_HANDLER.name]: [
      {
        id: MOCK_HANDLER.id,
        version: '2026-04-08',
        spec: 'https://example.com/ucp/mock-payment',
        schema: 'https://example.com/ucp/mock-payment/schema.json',
        available_instruments: [{ type: 'card' }],
      },
    ],
    [GPAY_HANDLER.name]: [
      {
        id: GPAY_HANDLER.id,
        version: '2026-04-08',
        spec: 'https://pay.google.com/gp/p/ucp/2026-04-08/',
        schema: 'https://pay.google.com/gp/p/ucp/2026-04-08/schemas/config.json',
        available_instruments: [{ type: 'card' }],
      },
    ],
  };

  function profile(): Record<string, unknown> {
    if (v === '2026-01-11') {
      const cap = (name: string, page: string, schema: string, extra: Record<string, unknown> = {}) => ({
        name,
        version: v,
        spec: `${SPEC}/specification/${page}`,
        schema: `${SPEC}/schemas/shopping/${schema}`,
        ...extra,
      });
      return {
        ucp: {
          version: v,
          services: {
            'dev.ucp.shopping': {
              version: v,
              spec: `${SPEC}/specification/reference`,
              rest: { schema: `${SPEC}/services/shopping/rest.openapi.json`, endpoint: business.endpoint },
            },
          },
          capabilities: [
            cap('dev.ucp.shopping.checkout', 'checkout', 'checkout.json'),
            cap('dev.ucp.shopping.order', 'order', 'order.json'),
            cap('dev.ucp.shopping.fulfillment', 'fulfillment', 'fulfillment.json', { extends: 'dev.ucp.shopping.checkout' }),
          ],
        },
        payment: { handlers: handlers0111 },
        signing_keys: [publicJwk],
      };
    }
    const entry = (page: string, schema: string, extra: Record<string, unknown> = {}) => [
      { version: v, spec: `${SPEC}/${v}/specification/${page}`, schema: `${SPEC}/${v}/schemas/shopping/${schema}`, ...extra },
    ];
    return {
      ucp: {
        version: v,
        services: {
          'dev.ucp.shopping': [
            {
              version: v,
              spec: `${SPEC}/${v}/specification/overview`,
              transport: 'rest',
              schema: `${SPEC}/${v}/services/shopping/rest.openapi.json`,
              endpoint: business.endpoint,
            },
          ],
        },
        capabilities: {
          'dev.ucp.shopping.checkout': entry('checkout', 'checkout.json'),
          'dev.ucp.shopping.fulfillment': entry('fulfillment', 'fulfillment.json', { extends: 'dev.ucp.shopping.checkout' }),
          'dev.ucp.shopping.order': entry('order', 'order.json'),
          ...(opts.catalogSearch ? { 'dev.ucp.shopping.catalog.search': entry('catalog/search', 'catalog_search.json') } : {}),
        },
        payment_handlers: handlers0408,
      },
      signing_keys: [publicJwk],
    };
  }

  // ---- checkout state -------------------------------------------------------------------------

  const priceOf = (id: string) => catalog.get(id)?.price ?? 0;
  const subtotalOf = (s: Session) => s.lines.reduce((sum, l) => sum + priceOf(l.item_id) * l.quantity, 0);
  const selectedOption = (s: Session) => {
    const g = s.method?.groups[0];
    return g?.selected_option_id ? (SHIPPING_OPTIONS.find((o) => o.id === g.selected_option_id) ?? null) : null;
  };

  function errorsOf(s: Session): Array<Record<string, unknown>> {
    const out: Array<Record<string, unknown>> = [];
    s.lines.forEach((l, i) => {
      const c = catalog.get(l.item_id);
      if (!c || c.stock < l.quantity) {
        out.push({
          type: 'error',
          code: 'out_of_stock',
          path: `$.line_items[${i}]`,
          content: `${c?.title ?? l.item_id} is out of stock`,
          severity: 'recoverable',
        });
      }
    });
    if (!s.buyer?.email)
      out.push({ type: 'error', code: 'missing', path: '$.buyer.email', content: 'Buyer email is required', severity: 'recoverable' });
    if (!s.method?.selected_destination_id) {
      out.push({
        type: 'error',
        code: 'missing',
        path: '$.fulfillment.methods[0].selected_destination_id',
        content: 'A shipping address is required',
        severity: 'recoverable',
      });
    } else if (!selectedOption(s)) {
      out.push({
        type: 'error',
        code: 'missing',
        path: '$.fulfillment.methods[0].groups[0].selected_option_id',
        content: 'Please select a shipping option',
        severity: 'recoverable',
      });
    }
    if (s.declined) out.push({ type: 'error', code: 'payment_declined', content: s.declined, severity: 'recoverable' });
    return out;
  }

  function refreshStatus(s: Session) {
    if (s.status === 'completed' || s.status === 'canceled') return;
    if (s.escalated) s.status = 'requires_escalation';
    else s.status = errorsOf(s).some((e) => e.code !== 'payment_declined') ? 'incomplete' : 'ready_for_complete';
  }

  function totalsOf(s: Session) {
    const subtotal = subtotalOf(s);
    const shipping = selectedOption(s)?.amount ?? 0;
    const tax = Math.round((subtotal * taxBps) / 10_000);
    return { subtotal, shipping, tax, total: subtotal + shipping + tax };
  }

  function render(s: Session): Record<string, unknown> {
    const t = totalsOf(s);
    const totals = [
      { type: 'subtotal', display_text: 'Subtotal', amount: t.subtotal },
      ...(selectedOption(s) ? [{ type: 'fulfillment', display_text: 'Shipping', amount: t.shipping }] : []),
      { type: 'tax', display_text: 'Tax', amount: t.tax },
      { type: 'total', display_text: 'Total', amount: t.total },
    ];
    const messages = s.status === 'completed' || s.status === 'canceled' ? [] : errorsOf(s);
    if (s.escalated && s.status === 'requires_escalation') {
      messages.push({
        type: 'error',
        code: 'requires_3ds',
        content: 'The bank needs the buyer to verify this payment',
        severity: 'requires_buyer_input',
      });
    }
    const lineItems = s.lines.map((l) => {
      const c = catalog.get(l.item_id);
      const amount = priceOf(l.item_id) * l.quantity;
      return {
        id: l.id,
        item: {
          id: l.item_id,
          title: c?.title ?? l.item_id,
          price: priceOf(l.item_id),
          ...(c?.image_url ? { image_url: c.image_url } : {}),
        },
        quantity: l.quantity,
        totals: [
          { type: 'subtotal', amount },
          { type: 'total', amount },
        ],
      };
    });
    const fulfillment = s.method
      ? {
          methods: [
            {
              id: s.method.id,
              type: 'shipping',
              line_item_ids: s.lines.map((l) => l.id),
              destinations: s.method.destinations,
              selected_destination_id: s.method.selected_destination_id,
              ...(s.method.selected_destination_id
                ? {
                    groups: s.method.groups.map((g) => ({
                      id: g.id,
                      line_item_ids: s.lines.map((l) => l.id),
                      selected_option_id: g.selected_option_id,
                      options: SHIPPING_OPTIONS.map((o) => ({
                        id: o.id,
                        title: o.title,
                        totals: [{ type: 'total', display_text: o.title, amount: o.amount }],
                      })),
                    })),
                  }
                : {}),
            },
          ],
        }
      : undefined;
    const continueUrl =
      s.status === 'requires_escalation' && escalation
        ? escalation
        : s.status !== 'completed' && s.status !== 'canceled'
          ? `${business.url}/checkout/${s.id}`
          : undefined;
    const common = {
      id: s.id,
      status: s.status,
      currency: s.currency,
      line_items: lineItems,
      totals,
      ...(s.buyer ? { buyer: s.buyer } : {}),
      ...(messages.length ? { messages } : {}),
      links: [{ type: 'terms_of_service', url: `${business.url}/terms` }],
      ...(continueUrl ? { continue_url: continueUrl } : {}),
      ...(fulfillment ? { fulfillment } : {}),
      ...(s.order ? { order: s.order } : {}),
    };
    if (v === '2026-01-11') {
      return {
        ucp: {
          version: v,
          capabilities: [
            { name: 'dev.ucp.shopping.checkout', version: v },
            { name: 'dev.ucp.shopping.fulfillment', version: v },
          ],
        },
        ...common,
        payment: { handlers: handlers0111 },
      };
    }
    return {
      ucp: {
        version: v,
        status: 'success',
        capabilities: {
          'dev.ucp.shopping.checkout': [{ version: v }],
          'dev.ucp.shopping.fulfillment': [{ version: v, extends: 'dev.ucp.shopping.checkout' }],
        },
        payment_handlers: handlers0408,
      },
      ...common,
    };
  }

  // ---- answers ------------------------------------------------------------------------------------

  type Answer = { status: number; body: unknown };

  /** A refusal without a resource: 2026-04-08's error envelope (HTTP 200), the reference merchants' 4xx before. */
  function noResource(code: string, content: string, status0111: number): Answer {
    if (v === '2026-04-08') {
      return {
        status: 200,
        body: {
          ucp: { version: v, status: 'error' },
          messages: [{ type: 'error', code, content, severity: 'unrecoverable' }],
          continue_url: `${business.url}/`,
        },
      };
    }
    return { status: status0111, body: { detail: content, code: code.toUpperCase() } };
  }

  const protocolError = (status: number, code: string, content: string): Answer => ({
    status,
    body: v === '2026-04-08' ? { code, content } : { detail: content, code: code.toUpperCase() },
  });

  function applyBuyer(s: Session, b: unknown) {
    if (b && typeof b === 'object') s.buyer = b as Record<string, unknown>;
  }

  function applyFulfillment(s: Session, f: unknown, onCreate: boolean): Answer | null {
    const methods = (f as { methods?: Array<Record<string, unknown>> } | undefined)?.methods;
    if (!methods) return null;
    for (const m of methods) {
      if ((m.type ?? 'shipping') !== 'shipping') continue;
      if (!s.method || (!onCreate && m.id === undefined && v === '2026-04-08')) {
        if (!s.method)
          s.method = {
            id: `ship_${++seq}`,
            type: 'shipping',
            destinations: [],
            selected_destination_id: null,
            groups: [{ id: `group_${++seq}`, selected_option_id: null }],
          };
      } else if (m.id !== undefined && m.id !== s.method.id)
        return protocolError(400, 'invalid', `unknown fulfillment method ${String(m.id)}`);
      const method = s.method;
      if (Array.isArray(m.destinations)) {
        method.destinations = (m.destinations as Array<Record<string, unknown>>).map((d) => ({
          ...d,
          id: typeof d.id === 'string' ? d.id : `dest_${++seq}`,
        }));
        if (method.destinations.length === 1 && !m.selected_destination_id) method.selected_destination_id = method.destinations[0]!.id;
      }
      if (typeof m.selected_destination_id === 'string') {
        if (!method.destinations.some((d) => d.id === m.selected_destination_id))
          return protocolError(400, 'invalid', 'unknown destination');
        method.selected_destination_id = m.selected_destination_id;
      }
      for (const g of (m.groups as Array<Record<string, unknown>> | undefined) ?? []) {
        const group = method.groups.find((x) => x.id === g.id);
        if (!group) return protocolError(400, 'invalid', `unknown fulfillment group ${String(g.id)}`);
        if (typeof g.selected_option_id === 'string') {
          if (!SHIPPING_OPTIONS.some((o) => o.id === g.selected_option_id))
            return protocolError(400, 'invalid', 'unknown fulfillment option');
          group.selected_option_id = g.selected_option_id;
        }
      }
    }
    return null;
  }

  function linesFrom(raw: unknown, existing: Session['lines']): Session['lines'] | Answer {
    const lines: Session['lines'] = [];
    for (const li of (raw as Array<{ id?: string; item?: { id?: string }; quantity?: number }>) ?? []) {
      const itemId = li.item?.id ?? '';
      if (!catalog.has(itemId)) return noResource('item_unavailable', `Item ${itemId} is not sold here`, 400);
      const kept = li.id ? existing.find((l) => l.id === li.id) : undefined;
      lines.push({ id: kept?.id ?? `li_${++seq}`, item_id: itemId, quantity: li.quantity ?? 1 });
    }
    return lines;
  }

  function create(body: Record<string, unknown>): Answer {
    check('create request', schemas.validate(checkoutRef, 'request', 'create', body));
    const lines = linesFrom(body.line_items, []);
    if (!Array.isArray(lines)) return lines;
    if (lines.every((l) => catalog.get(l.item_id)!.stock < l.quantity))
      return noResource('out_of_stock', 'All requested items are currently out of stock', 400);
    const s: Session = {
      id: `chk_${randomUUID().replace(/-/g, '').slice(0, 16)}`,
      status: 'incomplete',
      currency,
      lines,
      buyer: null,
      method: null,
      order: null,
      escalated: false,
      declined: null,
    };
    applyBuyer(s, body.buyer);
    const bad = applyFulfillment(s, body.fulfillment, true);
    if (bad) return bad;
    sessions.set(s.id, s);
    refreshStatus(s);
    return { status: 201, body: render(s) };
  }

  function update(s: Session, body: Record<string, unknown>): Answer {
    check('update request', schemas.validate(checkoutRef, 'request', 'update', body));
    if (s.status === 'completed' || s.status === 'canceled')
      return protocolError(409, 'checkout_not_modifiable', `Cannot update a ${s.status} checkout`);
    const lines = linesFrom(body.line_items, s.lines);
    if (!Array.isArray(lines)) return lines;
    s.lines = lines;
    applyBuyer(s, body.buyer);
    const bad = applyFulfillment(s, body.fulfillment, false);
    if (bad) return bad;
    s.declined = null;
    refreshStatus(s);
    return { status: 200, body: render(s) };
  }

  function complete(s: Session, body: Record<string, unknown>): Answer {
    const completeRef = v === '2026-04-08' ? checkoutRef : 'https://ucp.dev/schemas/shopping/payment_data.json';
    check('complete request', schemas.validate(completeRef, 'request', 'complete', body));
    if (s.status === 'completed') return { status: 200, body: render(s) };
    if (s.status === 'canceled') return protocolError(409, 'checkout_not_modifiable', 'The checkout was canceled');
    refreshStatus(s);
    if (s.status !== 'ready_for_complete' && !(s.status === 'requires_escalation')) {
      return v === '2026-04-08'
        ? { status: 200, body: render(s) }
        : protocolError(400, 'invalid_request', 'The checkout is not ready to complete');
    }
    const instrument =
      v === '2026-04-08'
        ? ((body.payment as { instruments?: Array<Record<string, unknown>> } | undefined)?.instruments ?? [])[0]
        : (body.payment_data as Record<string, unknown> | undefined);
    const handlerId = instrument?.handler_id;
    const token = (instrument?.credential as { token?: string } | undefined)?.token;
    if (handlerId !== MOCK_HANDLER.id && handlerId !== GPAY_HANDLER.id)
      return protocolError(400, 'invalid', `Unknown payment handler ${String(handlerId)}`);
    if (escalation !== undefined) {
      s.escalated = true;
      refreshStatus(s);
      return { status: 200, body: render(s) };
    }
    if (declineAll || token === TOKEN_DECLINE || token !== TOKEN_OK) {
      if (v === '2026-01-11') return { status: 402, body: { detail: 'Payment Failed: Insufficient Funds', code: 'INSUFFICIENT_FUNDS' } };
      s.declined = 'Payment declined: insufficient funds';
      return { status: 200, body: render(s) };
    }
    for (const l of s.lines) {
      if (catalog.get(l.item_id)!.stock < l.quantity) {
        if (v === '2026-01-11') return protocolError(409, 'out_of_stock', `Item ${l.item_id} is out of stock`);
        refreshStatus(s);
        return { status: 200, body: render(s) };
      }
    }
    for (const l of s.lines) catalog.get(l.item_id)!.stock -= l.quantity;
    const t = totalsOf(s);
    const orderId = `ord_${++seq}`;
    orders.set(orderId, {
      id: orderId,
      checkout_id: s.id,
      lines: s.lines.map((l) => ({ ...l, price: priceOf(l.item_id), title: catalog.get(l.item_id)!.title })),
      destination: s.method?.destinations.find((d) => d.id === s.method?.selected_destination_id) ?? null,
      shipping: t.shipping,
      tax: t.tax,
      events: [],
      adjustments: [],
      canceled: false,
    });
    s.order = { id: orderId, permalink_url: `${business.url}/orders/${orderId}` };
    s.status = 'completed';
    return { status: 200, body: render(s) };
  }

  function cancel(s: Session): Answer {
    if (s.status === 'completed' || s.status === 'canceled')
      return protocolError(409, 'checkout_not_modifiable', `Cannot cancel a ${s.status} checkout`);
    s.status = 'canceled';
    return { status: 200, body: render(s) };
  }

  function search(body: Record<string, unknown>): Answer {
    check(
      'search request',
      schemas.validate('https://ucp.dev/schemas/shopping/catalog_search.json#/$defs/search_request', 'request', 'read', body),
    );
    const words = String(body.query ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter(Boolean);
    const max = (body.filters as { price?: { max?: number } } | undefined)?.price?.max;
    const limit = (body.pagination as { limit?: number } | undefined)?.limit ?? 10;
    const hits = [...catalog.values()]
      .filter((c) => words.every((w) => c.title.toLowerCase().includes(w)) && (max === undefined || c.price <= max))
      .slice(0, limit);
    const price = (amount: number) => ({ amount, currency });
    return {
      status: 200,
      body: {
        ucp: { version: v, capabilities: { 'dev.ucp.shopping.catalog.search': [{ version: v }] } },
        products: hits.map((c) => ({
          id: `prod_${c.id}`,
          title: c.title,
          description: { plain: c.title },
          url: `${business.url}/products/${c.id}`,
          price_range: { min: price(c.price), max: price(c.price) },
          ...(c.image_url ? { media: [{ type: 'image', url: c.image_url }] } : {}),
          variants: [
            {
              id: c.id,
              title: c.title,
              description: { plain: c.title },
              price: price(c.price),
              availability: { available: c.stock > 0, status: c.stock > 0 ? 'in_stock' : 'out_of_stock' },
            },
          ],
        })),
        pagination: { has_next_page: false },
      },
    };
  }

  // ---- HTTP ---------------------------------------------------------------------------------------

  async function platformKeysFor(agent: string | undefined): Promise<JWK[]> {
    const url = /profile="([^"]+)"/.exec(agent ?? '')?.[1];
    if (!url) return [];
    const hit = platformKeys.get(url);
    if (hit) return hit;
    const res = await fetch(url);
    const profile = (await res.json()) as { signing_keys?: JWK[]; ucp?: { version?: string } };
    if (profile.ucp?.version !== v) signatureErrors.push(`the platform profile ${url} declares ${profile.ucp?.version}, not ${v}`);
    const keys = profile.signing_keys ?? [];
    platformKeys.set(url, keys);
    return keys;
  }

  function opOf(method: string, p: string): { op: BusinessOp; id?: string; pattern: string } | null {
    if (method === 'GET' && p === '/.well-known/ucp') return { op: 'profile', pattern: 'GET /.well-known/ucp' };
    // A version-specific profile (what a `supported_versions` map links to): served as is.
    if (method === 'GET' && p === `/.well-known/ucp/${v}`) return { op: 'profile', id: v, pattern: `GET /.well-known/ucp/${v}` };
    if (method === 'POST' && p === '/ucp/checkout-sessions') return { op: 'create', pattern: 'POST /checkout-sessions' };
    if (method === 'POST' && p === '/ucp/catalog/search') return { op: 'search', pattern: 'POST /catalog/search' };
    const m = /^\/ucp\/checkout-sessions\/([^/]+)(\/complete|\/cancel)?$/.exec(p);
    if (!m) return null;
    const id = decodeURIComponent(m[1]!);
    if (method === 'GET' && !m[2]) return { op: 'get', id, pattern: 'GET /checkout-sessions/{id}' };
    if (method === 'PUT' && !m[2]) return { op: 'update', id, pattern: 'PUT /checkout-sessions/{id}' };
    if (method === 'POST' && m[2] === '/complete') return { op: 'complete', id, pattern: 'POST /checkout-sessions/{id}/complete' };
    if (method === 'POST' && m[2] === '/cancel') return { op: 'cancel', id, pattern: 'POST /checkout-sessions/{id}/cancel' };
    return null;
  }

  const send = (res: http.ServerResponse, a: { status: number; body: string }) => {
    res.writeHead(a.status, { 'content-type': 'application/json', 'cache-control': 'public, max-age=60' });
    res.end(a.body);
  };

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const raw = await readBody(req);
    const method = req.method ?? 'GET';
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    let body: unknown = null;
    if (raw.length) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        validationErrors.push(`${method} ${p}: the body is not JSON`);
        return send(res, { status: 400, body: JSON.stringify({ code: 'invalid', content: 'not JSON' }) });
      }
    }
    requests.push({ method, path: p, headers: req.headers, body });
    const route = opOf(method, p);
    if (!route) return send(res, { status: 404, body: JSON.stringify({ code: 'not_found', content: 'no such resource' }) });
    pathCounts.set(route.pattern, (pathCounts.get(route.pattern) ?? 0) + 1);
    if (route.op === 'profile') {
      let doc = profile();
      if (opts.profile && !route.id) doc = opts.profile(doc, business);
      return send(res, { status: 200, body: JSON.stringify(doc) });
    }

    // Headers every UCP request carries (checkout-rest.md, "HTTP Headers").
    const key = req.headers['idempotency-key'] as string | undefined;
    if (!/^profile="[^"]+"$/.test(String(req.headers['ucp-agent'] ?? '')))
      validationErrors.push(`${route.pattern}: UCP-Agent missing or malformed`);
    if (!UUID.test(String(req.headers['request-id'] ?? ''))) validationErrors.push(`${route.pattern}: Request-Id missing or not a UUID`);
    const changing = ['create', 'update', 'complete', 'cancel'].includes(route.op);
    if (changing && !(key && UUID.test(key))) validationErrors.push(`${route.pattern}: Idempotency-Key missing or not a UUID`);
    if (key) keyCounts.set(key, (keyCounts.get(key) ?? 0) + 1);

    if (opts.requireSignedRequests) {
      const keys = await platformKeysFor(req.headers['ucp-agent'] as string | undefined);
      let problem: string | null;
      if (v === '2026-04-08') problem = verifyRfc9421({ method, path: req.url ?? p, headers: req.headers }, raw, keys);
      else {
        const token = String(req.headers['request-signature'] ?? '');
        const [h, , s] = token.split('.');
        try {
          const header = JSON.parse(Buffer.from(h ?? '', 'base64url').toString()) as { kid?: string; b64?: boolean };
          const jwk = keys.find((k) => k.kid === header.kid);
          if (!jwk) throw new Error(`unknown kid ${header.kid}`);
          await flattenedVerify(
            { protected: h!, signature: s!, payload: header.b64 === false ? new Uint8Array(raw) : raw.toString('base64url') },
            createPublicKey({ key: jwk as never, format: 'jwk' }),
          );
          problem = null;
        } catch (err) {
          problem = `Request-Signature: ${(err as Error).message}`;
        }
      }
      if (problem) {
        signatureErrors.push(`${route.pattern}: ${problem}`);
        return send(res, { status: 401, body: JSON.stringify({ code: 'signature_invalid', content: problem }) });
      }
    }

    const hang = hangs.get(route.op) ?? 0;
    if (hang > 0) {
      hangs.set(route.op, hang - 1);
      hanging.push(res);
      return;
    }
    const fail = failures.get(route.op);
    if (fail && fail.times > 0) {
      fail.times--;
      return send(res, { status: fail.status, body: JSON.stringify({ code: 'unavailable', content: 'try again' }) });
    }

    const hash = createHash('sha256')
      .update(`${route.pattern} ${route.id ?? ''} `)
      .update(raw)
      .digest('hex');
    if (changing && key) {
      const stored = idempotency.get(key);
      if (stored && stored.hash !== hash) {
        return send(res, {
          status: 409,
          body: JSON.stringify({ code: 'idempotency_conflict', content: 'Idempotency key reused with different parameters' }),
        });
      }
      if (stored) {
        business.replays++;
        return send(res, { status: stored.status, body: stored.body });
      }
    }

    let answer: Answer;
    const s = route.id ? sessions.get(route.id) : undefined;
    if (route.id && !s) answer = noResource('not_found', `Checkout session ${route.id} not found`, 404);
    else if (route.op === 'create') answer = create(body as Record<string, unknown>);
    else if (route.op === 'update') answer = update(s!, body as Record<string, unknown>);
    else if (route.op === 'complete') answer = complete(s!, body as Record<string, unknown>);
    else if (route.op === 'cancel') answer = cancel(s!);
    else if (route.op === 'search') answer = search(body as Record<string, unknown>);
    else {
      refreshStatus(s!);
      answer = { status: 200, body: render(s!) };
    }

    // Every body this business sends is checked against its version's schemas.
    if (answer.status < 300) {
      if (route.op === 'search') {
        check(
          'search response',
          schemas.validate('https://ucp.dev/schemas/shopping/catalog_search.json#/$defs/search_response', 'response', 'read', answer.body),
        );
      } else if (v === '2026-04-08') {
        const errs = schemas.validate(checkoutRef, 'response', 'read', answer.body);
        const errEnv = schemas.validate('https://ucp.dev/schemas/shopping/types/error_response.json', 'response', 'read', answer.body);
        if (errs.length && errEnv.length) check(`${route.op} response`, errs);
      } else check(`${route.op} response`, schemas.validate(checkoutRef, 'response', 'read', answer.body));
    }
    const text = JSON.stringify(answer.body);
    if (changing && key) idempotency.set(key, { hash, status: answer.status, body: text });
    const lost = lose.get(route.op) ?? 0;
    if (lost > 0) {
      lose.set(route.op, lost - 1);
      return send(res, { status: 500, body: JSON.stringify({ code: 'internal', content: 'the answer was lost' }) });
    }
    const hold = holdsAfterActing.get(route.op) ?? 0;
    if (hold > 0) {
      holdsAfterActing.set(route.op, hold - 1);
      hanging.push(res);
      return;
    }
    send(res, { status: answer.status, body: text });
  }

  // ---- order events ---------------------------------------------------------------------------------

  function orderBody(o: Order, eventId: string, at: string): Record<string, unknown> {
    const subtotal = o.lines.reduce((s, l) => s + l.price * l.quantity, 0);
    const shipped = o.events.some((e) => e.type === 'shipped');
    const lineItems = o.lines.map((l) => {
      const total = o.canceled ? 0 : l.quantity;
      const fulfilled = shipped ? l.quantity : 0;
      const status = v === '2026-04-08' && total === 0 ? 'removed' : fulfilled > 0 && fulfilled === total ? 'fulfilled' : 'processing';
      return {
        id: l.id,
        item: { id: l.item_id, title: l.title, price: l.price },
        quantity: { ...(v === '2026-04-08' ? { original: l.quantity } : {}), total, fulfilled },
        totals: [
          { type: 'subtotal', amount: l.price * l.quantity },
          { type: 'total', amount: l.price * l.quantity },
        ],
        status,
      };
    });
    const totals = [
      { type: 'subtotal', amount: subtotal },
      { type: 'fulfillment', amount: o.shipping },
      { type: 'tax', amount: o.tax },
      { type: 'total', amount: subtotal + o.shipping + o.tax },
    ];
    const base = {
      id: o.id,
      checkout_id: o.checkout_id,
      permalink_url: `${business.url}/orders/${o.id}`,
      line_items: lineItems,
      fulfillment: {
        ...(o.destination
          ? {
              expectations: [
                {
                  id: 'exp_1',
                  line_items: o.lines.map((l) => ({ id: l.id, quantity: l.quantity })),
                  method_type: 'shipping',
                  destination: Object.fromEntries(Object.entries(o.destination).filter(([k]) => k !== 'id')),
                  description: 'Arrives in 3-5 business days',
                },
              ],
            }
          : {}),
        events: o.events,
      },
      adjustments: o.adjustments,
      totals,
    };
    if (v === '2026-04-08') {
      return { ucp: { version: v, capabilities: { 'dev.ucp.shopping.order': [{ version: v }] } }, ...base, currency };
    }
    return {
      ucp: { version: v, capabilities: [{ name: 'dev.ucp.shopping.order', version: v }] },
      ...base,
      event_id: eventId,
      created_time: at,
    };
  }

  async function sendOrderEvent(
    orderId: string,
    kind: 'placed' | 'shipped' | 'canceled' | 'refunded',
    webhookUrl: string,
    o2: { tamperBody?: boolean; wrongKey?: boolean; unsigned?: boolean } = {},
  ): Promise<{ status: number; eventId: string }> {
    const o = orders.get(orderId);
    if (!o) throw new Error(`no order ${orderId}`);
    const now = new Date();
    const at = now.toISOString();
    const lines = o.lines.map((l) => ({ id: l.id, quantity: l.quantity }));
    const total = o.lines.reduce((s, l) => s + l.price * l.quantity, 0) + o.shipping + o.tax;
    if (kind === 'shipped') {
      o.events.push({
        id: `fe_${++seq}`,
        occurred_at: at,
        type: 'shipped',
        line_items: lines,
        carrier: 'UPS',
        tracking_number: `1Z${orderId.toUpperCase()}`,
        tracking_url: `https://www.ups.com/track?tracknum=1Z${orderId.toUpperCase()}`,
      });
    } else if (kind === 'canceled') {
      o.canceled = true;
      o.adjustments.push({
        id: `adj_${++seq}`,
        type: 'cancellation',
        occurred_at: at,
        status: 'completed',
        description: 'Canceled by the buyer',
      });
    } else if (kind === 'refunded') {
      o.adjustments.push({
        id: `adj_${++seq}`,
        type: 'refund',
        occurred_at: at,
        status: 'completed',
        line_items: lines.map((l) => ({ id: l.id, quantity: v === '2026-04-08' ? -l.quantity : l.quantity })),
        ...(v === '2026-04-08' ? { totals: [{ type: 'total', amount: -total }] } : { amount: total }),
        description: 'Returned',
      });
    }
    const eventId = randomUUID();
    const doc = orderBody(o, eventId, at);
    if (v === '2026-04-08') check('order event', schemas.validate('https://ucp.dev/schemas/shopping/order.json', 'response', 'read', doc));
    else {
      check('order event', schemas.validate('https://ucp.dev/schemas/shopping/order.json', 'response', 'read', doc));
      if (typeof doc.event_id !== 'string' || typeof doc.created_time !== 'string')
        validationErrors.push('order event: event_id and created_time are required');
    }
    const text = JSON.stringify(doc);
    const target = new URL(webhookUrl);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'ucp-agent': `profile="${business.url}/.well-known/ucp"`,
    };
    const signingKey: KeyObject = o2.wrongKey ? wrongKey : privateKey;
    if (!o2.unsigned) {
      if (v === '2026-04-08') {
        headers['webhook-id'] = eventId;
        headers['webhook-timestamp'] = String(Math.floor(now.getTime() / 1000));
        headers['content-digest'] = `sha-256=:${createHash('sha256').update(text).digest('base64')}:`;
        const components = ['@method', '@authority', '@path', 'content-digest', 'content-type'];
        const params = `(${components.map((c) => `"${c}"`).join(' ')});created=${Math.floor(now.getTime() / 1000)};keyid="${kid}"`;
        const values: Record<string, string> = {
          '@method': 'POST',
          '@authority': target.host,
          '@path': target.pathname,
          'content-digest': headers['content-digest'],
          'content-type': headers['content-type']!,
        };
        const base = [...components.map((c) => `"${c}": ${values[c]}`), `"@signature-params": ${params}`].join('\n');
        const sig = sign('sha256', Buffer.from(base), { key: signingKey, dsaEncoding: 'ieee-p1363' });
        headers['signature-input'] = `sig1=${params}`;
        headers.signature = `sig1=:${sig.toString('base64')}:`;
      } else {
        // The first release: a detached JWS over the body (base64url payload, left out of the token).
        const jws = await new FlattenedSign(new TextEncoder().encode(text)).setProtectedHeader({ alg: 'ES256', kid }).sign(signingKey);
        headers['request-signature'] = `${jws.protected}..${jws.signature}`;
      }
    }
    const sent = o2.tamperBody ? text.replace(`"${orderId}"`, `"${orderId}x"`) : text;
    const res = await fetch(webhookUrl, { method: 'POST', headers, body: sent });
    await res.arrayBuffer();
    return { status: res.status, eventId };
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      validationErrors.push(`handler crashed: ${err.message}`);
      if (!res.headersSent) send(res, { status: 500, body: JSON.stringify({ code: 'internal', content: err.message }) });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = `http://127.0.0.1:${port}`;
  Object.assign(business, {
    url,
    endpoint: `${url}/ucp`,
    version: v,
    kid,
    publicJwk,
    requests,
    validationErrors,
    signatureErrors,
    replays: 0,
    count: (mp: string) => pathCounts.get(mp) ?? 0,
    keyCount: (k: string) => keyCounts.get(k) ?? 0,
    ordersPlaced: () => orders.size,
    failNext: (op: BusinessOp, times: number, status = 503) => failures.set(op, { times, status }),
    loseAnswerAfterActing: (op: BusinessOp, times: number) => lose.set(op, times),
    hangNext: (op: BusinessOp, times = 1) => hangs.set(op, times),
    holdAnswerAfterActing: (op: BusinessOp, times = 1) => holdsAfterActing.set(op, times),
    setPrice: (id: string, price: number) => {
      catalog.get(id)!.price = price;
    },
    setStock: (id: string, stock: number) => {
      catalog.get(id)!.stock = stock;
    },
    declineAllPayments: (on: boolean) => {
      declineAll = on;
    },
    requireEscalation: (continueUrl: string | null) => {
      escalation = continueUrl ?? undefined;
    },
    sendOrderEvent,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  } satisfies Omit<UcpBusiness, never>);
  return business;
}

export type { UcpOp };
