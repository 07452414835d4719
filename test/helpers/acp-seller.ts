import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import { checkRequestBody, checkRequestHeaders, checkResponseBody, IdempotencyStore } from './acp-openapi';
import type { TestPsp } from './test-psp';

/**
 * A loopback ACP seller (openapi.agentic_checkout.yaml, API-Version 2026-04-17) on 127.0.0.1, mounted
 * under `/acp` so the agent's base-URL handling is exercised. It validates every request it receives
 * (headers and body) and every answer it sends against the official document, recording what does
 * not conform in `validationErrors` (tests assert it stays empty); checks the bearer credential it
 * issued and the API-Version; applies the RFC's idempotency rules per credential and path (same key
 * and body: the stored answer again, `Idempotent-Replayed: true`; changed body: 422; 5xx never
 * stored), so a retried complete places one order. It prices from its own catalog on every answer
 * (a price set between create and complete shows in the next read), and it can fail, hang, lose an
 * answer after acting, decline, run out of stock, require the buyer on its page, and send signed
 * order events.
 */

const SPEC = 'openapi.agentic_checkout.yaml' as const;
export const ACP_SELLER_PREFIX = '/acp';

export type SellerOp = 'create' | 'update' | 'get' | 'complete' | 'cancel';

const TEMPLATES: Record<SellerOp, { method: 'GET' | 'POST'; template: string }> = {
  create: { method: 'POST', template: '/checkout_sessions' },
  update: { method: 'POST', template: '/checkout_sessions/{checkout_session_id}' },
  get: { method: 'GET', template: '/checkout_sessions/{checkout_session_id}' },
  complete: { method: 'POST', template: '/checkout_sessions/{checkout_session_id}/complete' },
  cancel: { method: 'POST', template: '/checkout_sessions/{checkout_session_id}/cancel' },
};

export interface CatalogItem {
  id: string;
  name: string;
  unit_amount: number;
  stock: number;
}

export interface ShippingOption {
  id: string;
  title: string;
  amount: number;
}

interface SessionState {
  id: string;
  currency: string;
  entries: Array<{ id: string }>;
  buyer?: Record<string, unknown>;
  fulfillment_details?: Record<string, any>;
  selected?: Array<{ type: string; option_id: string; item_ids: string[] }>;
  state: 'open' | 'completed' | 'canceled';
  order?: { type: 'order'; id: string; checkout_session_id: string; permalink_url: string; status: string };
}

export interface PlacedOrder {
  order_id: string;
  session_id: string;
  total: number;
  currency: string;
  token: string;
  handler_id: string;
}

export interface SellerRequest {
  op: SellerOp | 'unknown';
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  requestId: string | undefined;
  body: unknown;
  status: number | null;
  replayed: boolean;
}

export interface AcpTestSeller {
  /** The seller's ACP base URL (what a merchant record's endpoint holds). */
  url: string;
  credential: string;
  validationErrors: string[];
  requests: SellerRequest[];
  orders: PlacedOrder[];
  count(op: SellerOp): number;
  /** The next `times` calls of `op` answer `status` (5xx/429) before doing anything, then it recovers. */
  failNext(op: SellerOp, times: number, status?: number): void;
  /** The next `times` calls of `op` are never answered (held until close). */
  hang(op: SellerOp, times?: number): void;
  /** The next `times` calls of `op` are carried out and their answer stored, then the connection is cut before answering. */
  loseAnswer(op: SellerOp, times?: number): void;
  /** Complete answers payment_declined (402) while on, without placing an order. */
  declinePayments(on: boolean): void;
  setStock(itemId: string, stock: number): void;
  setPrice(itemId: string, unitAmount: number): void;
  /** Sessions need the buyer on the seller's page (status requires_escalation with a continue_url). */
  requireEscalation(on: boolean): void;
  /** The session as the seller would answer it now. */
  session(id: string): Record<string, unknown> | undefined;
  /** An order event for a placed order, valid against the webhook document. */
  orderEvent(orderId: string, type: 'order_create' | 'order_update', order?: Record<string, unknown>): Record<string, unknown>;
  /**
   * POSTs an event to a webhook URL signed as `Merchant-Signature: t=<t>,v1=<HMAC-SHA256(secret, "<t>.<body>")>`;
   * `timestamp` (unix seconds) defaults to now. The event and the receiver's answer are validated.
   */
  sendOrderEvent(
    webhookUrl: string,
    secret: string,
    event: Record<string, unknown>,
    options?: { timestamp?: number; rawBody?: string },
  ): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

export interface AcpSellerOptions {
  credential?: string;
  catalog?: CatalogItem[];
  /** Shipping options in the order the seller lists them; it preselects the first (the dearest by default). */
  shipping?: ShippingOption[];
  taxRateBps?: number;
  /** Charges go through this PSP's delegated tokens; without one any token is accepted (unless declining). */
  psp?: TestPsp;
  /** The seller's merchant id at the PSP (the handler's config.merchant_id). */
  pspMerchantId?: string;
}

const DEFAULT_CATALOG: CatalogItem[] = [
  { id: 'sku_kettle', name: 'Stovetop kettle', unit_amount: 3450, stock: 10 },
  { id: 'sku_mug', name: 'Enamel mug', unit_amount: 1200, stock: 50 },
];
const DEFAULT_SHIPPING: ShippingOption[] = [
  { id: 'ship_express', title: 'Express (1-2 days)', amount: 1500 },
  { id: 'ship_standard', title: 'Standard (4-6 days)', amount: 500 },
];

export async function startAcpSeller(options: AcpSellerOptions = {}): Promise<AcpTestSeller> {
  const credential = options.credential ?? 'seller_issued_agent_credential';
  const catalog = new Map((options.catalog ?? DEFAULT_CATALOG).map((i) => [i.id, { ...i }]));
  const shipping = options.shipping ?? DEFAULT_SHIPPING;
  const taxRateBps = options.taxRateBps ?? 1000;
  const pspMerchantId = options.pspMerchantId ?? 'acct_loopback_seller';
  const validationErrors: string[] = [];
  const requests: SellerRequest[] = [];
  const orders: PlacedOrder[] = [];
  const sessions = new Map<string, SessionState>();
  const idempotency = new IdempotencyStore();
  const failures = new Map<SellerOp, { times: number; status: number }>();
  const hangs = new Map<SellerOp, number>();
  const losses = new Map<SellerOp, number>();
  const held: http.ServerResponse[] = [];
  let declining = false;
  let escalating = false;
  let base = '';

  const handler = {
    id: 'card_tokenized',
    name: 'dev.acp.tokenized.card',
    version: '2026-01-22',
    spec: 'https://handlers.seller.test/tokenized-card',
    requires_delegate_payment: options.psp !== undefined,
    requires_pci_compliance: false,
    psp: options.psp ? 'loopback_psp' : 'none',
    config_schema: 'https://handlers.seller.test/tokenized-card/config.json',
    instrument_schemas: ['https://handlers.seller.test/tokenized-card/instrument.json'],
    config: { merchant_id: pspMerchantId },
  };

  const take = (m: Map<SellerOp, number>, op: SellerOp) => {
    const n = m.get(op) ?? 0;
    if (n <= 0) return false;
    m.set(op, n - 1);
    return true;
  };

  /**
   * The session as of now: priced from the catalog, with the messages and status that follow. The
   * order goes only into complete's answer (CheckoutSessionWithOrder); the other operations answer
   * CheckoutSession, which has no `order`.
   */
  function render(s: SessionState, withOrder = false): Record<string, any> {
    const counts = new Map<string, number>();
    for (const e of s.entries) counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
    const messages: Array<Record<string, unknown>> = [];
    const lineItems = [...counts].map(([id, quantity], index) => {
      const item = catalog.get(id)!;
      const gross = item.unit_amount * quantity;
      const tax = Math.round((gross * taxRateBps) / 10_000);
      if (s.state === 'open' && quantity > item.stock) {
        messages.push({
          type: 'error',
          code: 'out_of_stock',
          param: `$.line_items[${index}]`,
          content_type: 'plain',
          content: `Sorry, only ${item.stock} of '${item.name}' left in stock.`,
        });
      }
      return {
        id: `li_${id}`,
        item: { id },
        quantity,
        name: item.name,
        unit_amount: item.unit_amount,
        totals: [
          { type: 'items_base_amount', display_text: 'Base', amount: gross },
          { type: 'subtotal', display_text: 'Subtotal', amount: gross },
          { type: 'tax', display_text: 'Tax', amount: tax },
          { type: 'total', display_text: 'Total', amount: gross + tax },
        ],
      };
    });
    const address = s.fulfillment_details?.address;
    const options = address
      ? shipping.map((o) => ({
          type: 'shipping',
          id: o.id,
          title: o.title,
          totals: [{ type: 'total', display_text: 'Shipping', amount: o.amount }],
        }))
      : [];
    const selected = address ? (s.selected ?? [{ type: 'shipping', option_id: shipping[0]!.id, item_ids: [...counts.keys()] }]) : [];
    const shippingAmount = selected.reduce((sum, sel) => sum + (shipping.find((o) => o.id === sel.option_id)?.amount ?? 0), 0);
    const subtotal = lineItems.reduce((sum, li) => sum + li.totals[0]!.amount, 0);
    const tax = Math.round((subtotal * taxRateBps) / 10_000);
    const email = (s.buyer?.email as string | undefined) ?? (s.fulfillment_details?.email as string | undefined);
    if (s.state === 'open' && !address) {
      messages.push({
        type: 'error',
        code: 'missing',
        param: '$.fulfillment_details.address',
        resolution: 'requires_buyer_input',
        content_type: 'plain',
        content: 'A shipping address is needed.',
      });
    }
    if (s.state === 'open' && !email) {
      messages.push({
        type: 'error',
        code: 'missing',
        param: '$.buyer.email',
        content_type: 'plain',
        content: 'An email address is needed.',
      });
    }
    let status: string;
    if (s.state === 'completed') status = 'completed';
    else if (s.state === 'canceled') status = 'canceled';
    else if (messages.some((m) => m.type === 'error')) status = 'not_ready_for_payment';
    else if (escalating) status = 'requires_escalation';
    else status = 'ready_for_payment';
    if (s.state === 'canceled') messages.push({ type: 'info', content_type: 'plain', content: 'This checkout was canceled.' });
    return {
      id: s.id,
      protocol: { version: '2026-04-17' },
      capabilities: { payment: { handlers: [handler] } },
      ...(s.buyer ? { buyer: s.buyer } : {}),
      status,
      currency: s.currency,
      line_items: lineItems,
      ...(s.fulfillment_details ? { fulfillment_details: s.fulfillment_details } : {}),
      fulfillment_options: options,
      selected_fulfillment_options: selected,
      totals: [
        { type: 'items_base_amount', display_text: 'Items', amount: subtotal },
        { type: 'subtotal', display_text: 'Subtotal', amount: subtotal },
        ...(address ? [{ type: 'fulfillment', display_text: 'Shipping', amount: shippingAmount }] : []),
        { type: 'tax', display_text: 'Tax', amount: tax },
        { type: 'total', display_text: 'Total', amount: subtotal + shippingAmount + tax },
      ],
      messages,
      links: [{ type: 'terms_of_use', url: `${base}/terms` }],
      ...(status === 'requires_escalation' ? { continue_url: `${base}/continue/${s.id}` } : {}),
      ...(withOrder && s.order ? { order: s.order } : {}),
    };
  }

  const totalOf = (rendered: Record<string, any>) =>
    (rendered.totals as Array<{ type: string; amount: number }>).find((t) => t.type === 'total')!.amount;
  const err = (status: number, type: string, code: string, message: string, param?: string) => ({
    status,
    body: { type, code, message, ...(param ? { param } : {}) },
  });

  /** The operation itself, once the request is authenticated, valid and new under its key. */
  function perform(op: SellerOp, sessionId: string | undefined, body: any): { status: number; body: unknown } {
    if (op === 'create') {
      for (const [i, entry] of (body.line_items as Array<{ id: string }>).entries()) {
        if (!catalog.has(entry.id))
          return err(400, 'invalid_request', 'invalid_item_id', `There is no item '${entry.id}'.`, `$.line_items[${i}].id`);
      }
      const s: SessionState = {
        id: `cs_${randomBytes(8).toString('hex')}`,
        currency: String(body.currency).toLowerCase(),
        entries: body.line_items.map((e: { id: string }) => ({ id: e.id })),
        ...(body.buyer ? { buyer: body.buyer } : {}),
        ...(body.fulfillment_details ? { fulfillment_details: body.fulfillment_details } : {}),
        state: 'open',
      };
      sessions.set(s.id, s);
      return { status: 201, body: render(s) };
    }
    const s = sessions.get(sessionId!);
    if (!s) return err(404, 'invalid_request', 'not_found', `There is no checkout session '${sessionId}'.`);
    if (op === 'get') return { status: 200, body: render(s) };
    if (op === 'cancel') {
      if (s.state !== 'open') return err(405, 'invalid_request', 'not_cancelable', `The checkout session is already ${s.state}.`);
      s.state = 'canceled';
      return { status: 200, body: render(s) };
    }
    if (s.state !== 'open') return err(400, 'invalid_request', 'session_closed', `The checkout session is already ${s.state}.`);
    if (op === 'update') {
      if (body.buyer) s.buyer = body.buyer;
      if (body.fulfillment_details) s.fulfillment_details = body.fulfillment_details;
      if (body.line_items) s.entries = body.line_items.map((e: { id: string }) => ({ id: e.id }));
      if (body.selected_fulfillment_options) {
        for (const [i, sel] of (body.selected_fulfillment_options as Array<{ option_id: string }>).entries()) {
          if (!shipping.some((o) => o.id === sel.option_id)) {
            return err(
              400,
              'invalid_request',
              'invalid',
              `No fulfillment option '${sel.option_id}'.`,
              `$.selected_fulfillment_options[${i}].option_id`,
            );
          }
        }
        s.selected = body.selected_fulfillment_options;
      }
      return { status: 200, body: render(s) };
    }
    // complete
    if (body.buyer) s.buyer = body.buyer;
    const now = render(s);
    if (now.status !== 'ready_for_payment') {
      const why = (now.messages as Array<{ content: string }>).map((m) => m.content).join(' ') || `the session is ${now.status}`;
      return err(400, 'invalid_request', 'not_ready_for_payment', why);
    }
    if (body.payment_data.handler_id !== handler.id) {
      return err(
        400,
        'invalid_request',
        'invalid',
        `Unknown payment handler '${body.payment_data.handler_id}'.`,
        '$.payment_data.handler_id',
      );
    }
    if (declining) return err(402, 'invalid_request', 'payment_declined', 'The card issuer declined this payment.');
    const token = String(body.payment_data.instrument.credential.token);
    const total = totalOf(now);
    if (options.psp) {
      const charge = options.psp.redeem(token, {
        checkout_session_id: s.id,
        merchant_id: pspMerchantId,
        amount: total,
        currency: s.currency,
      });
      if (!charge.ok) return err(402, 'invalid_request', 'payment_declined', charge.reason);
    }
    const orderId = `ord_${randomBytes(6).toString('hex')}`;
    s.state = 'completed';
    s.order = { type: 'order', id: orderId, checkout_session_id: s.id, permalink_url: `${base}/orders/${orderId}`, status: 'confirmed' };
    orders.push({ order_id: orderId, session_id: s.id, total, currency: s.currency, token, handler_id: handler.id });
    return { status: 200, body: render(s, true) };
  }

  function route(method: string, path: string): { op: SellerOp; sessionId?: string } | null {
    if (!path.startsWith(`${ACP_SELLER_PREFIX}/checkout_sessions`)) return null;
    const rest = path.slice(ACP_SELLER_PREFIX.length).split('?')[0]!.split('/').filter(Boolean);
    if (rest.length === 1 && method === 'POST') return { op: 'create' };
    if (rest.length === 2)
      return method === 'GET'
        ? { op: 'get', sessionId: decodeURIComponent(rest[1]!) }
        : { op: 'update', sessionId: decodeURIComponent(rest[1]!) };
    if (rest.length === 3 && method === 'POST' && (rest[2] === 'complete' || rest[2] === 'cancel')) {
      return { op: rest[2], sessionId: decodeURIComponent(rest[1]!) };
    }
    return null;
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? '';
      const path = req.url ?? '';
      const text = Buffer.concat(chunks).toString('utf8');
      const routed = route(method, path);
      const record: SellerRequest = {
        op: routed?.op ?? 'unknown',
        method,
        path,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        requestId: req.headers['request-id'] as string | undefined,
        body: undefined,
        status: null,
        replayed: false,
      };
      requests.push(record);
      if (!routed) {
        validationErrors.push(`seller: ${method} ${path} is not an operation of ${SPEC}`);
        res.writeHead(404).end();
        return;
      }
      const { op, sessionId } = routed;
      const { method: m, template } = TEMPLATES[op];
      const where = `seller ${op} request`;
      const send = (status: number, body: unknown, replayed = false) => {
        validationErrors.push(...checkResponseBody(SPEC, template, m, status, body, `seller ${op} answer ${status}`));
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (record.idempotencyKey && m === 'POST') headers['idempotency-key'] = record.idempotencyKey;
        if (record.requestId) headers['request-id'] = record.requestId;
        if (replayed) headers['idempotent-replayed'] = 'true';
        record.status = status;
        record.replayed = replayed;
        res.writeHead(status, headers);
        res.end(JSON.stringify(body));
      };
      const error = (status: number, type: string, code: string, message: string, param?: string) => {
        const e = err(status, type, code, message, param);
        send(e.status, e.body);
      };

      validationErrors.push(...checkRequestHeaders(SPEC, template, m, req.headers, where));
      if (req.headers.authorization !== `Bearer ${credential}`)
        return error(401, 'invalid_request', 'unauthorized', 'Unknown or missing credential.');
      if (req.headers['api-version'] !== '2026-04-17') {
        return error(400, 'invalid_request', 'unsupported_api_version', 'This seller speaks API-Version 2026-04-17.');
      }
      let body: any;
      if (text.length > 0) {
        try {
          body = JSON.parse(text);
        } catch {
          return error(400, 'invalid_request', 'invalid_json', 'The body is not JSON.');
        }
      }
      record.body = body;
      const bodyErrors = checkRequestBody(SPEC, template, m, body, where);
      validationErrors.push(...bodyErrors);
      if (bodyErrors.length > 0) return error(400, 'invalid_request', 'invalid', bodyErrors[0]!);
      if (m === 'POST' && !record.idempotencyKey) {
        return error(400, 'invalid_request', 'idempotency_key_required', 'Idempotency-Key header is required on all POST requests');
      }

      const failing = failures.get(op);
      if (failing && failing.times > 0) {
        failing.times -= 1;
        return error(failing.status, 'service_unavailable', 'unavailable', 'The seller is briefly unavailable.');
      }
      if (take(hangs, op)) {
        held.push(res);
        return;
      }

      const scope = `${credential} ${path.split('?')[0]}`;
      if (m === 'POST') {
        const begun = idempotency.begin(scope, record.idempotencyKey!, body);
        if (begun.kind === 'replay') return send(begun.answer.status, begun.answer.body, true);
        if (begun.kind === 'conflict') {
          return error(
            422,
            'invalid_request',
            'idempotency_conflict',
            'Idempotency-Key has already been used with a different request body',
          );
        }
        if (begun.kind === 'in_flight') {
          res.setHeader('retry-after', '1');
          return error(409, 'invalid_request', 'idempotency_in_flight', 'A request with this Idempotency-Key is currently being processed');
        }
      }
      const answer = perform(op, sessionId, body);
      if (m === 'POST') idempotency.finish(scope, record.idempotencyKey!, answer);
      if (take(losses, op)) {
        // Done and stored, but the agent never hears it: only a retry under the same key finds out.
        record.status = answer.status;
        validationErrors.push(...checkResponseBody(SPEC, template, m, answer.status, answer.body, `seller ${op} answer ${answer.status}`));
        req.socket.destroy();
        return;
      }
      send(answer.status, answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  base = `http://127.0.0.1:${port}${ACP_SELLER_PREFIX}`;

  return {
    url: base,
    credential,
    validationErrors,
    requests,
    orders,
    count: (op) => requests.filter((r) => r.op === op).length,
    failNext(op, times, status = 503) {
      failures.set(op, { times, status });
    },
    hang(op, times = 1) {
      hangs.set(op, times);
    },
    loseAnswer(op, times = 1) {
      losses.set(op, times);
    },
    declinePayments(on) {
      declining = on;
    },
    setStock(itemId, stock) {
      catalog.get(itemId)!.stock = stock;
    },
    setPrice(itemId, unitAmount) {
      catalog.get(itemId)!.unit_amount = unitAmount;
    },
    requireEscalation(on) {
      escalating = on;
    },
    session(id) {
      const s = sessions.get(id);
      return s ? render(s) : undefined;
    },
    orderEvent(orderId, type, order = {}) {
      const placed = orders.find((o) => o.order_id === orderId)!;
      return {
        type,
        data: {
          type: 'order',
          id: orderId,
          checkout_session_id: placed.session_id,
          permalink_url: `${base}/orders/${orderId}`,
          status: 'confirmed',
          ...order,
        },
      };
    },
    async sendOrderEvent(webhookUrl, secret, event, opts = {}) {
      validationErrors.push(
        ...checkRequestBody(
          'openapi.agentic_checkout_webhook.yaml',
          '/agentic_checkout/webhooks/order_events',
          'POST',
          event,
          'seller order event',
        ),
      );
      const raw = opts.rawBody ?? JSON.stringify(event);
      const t = opts.timestamp ?? Math.floor(Date.now() / 1000);
      const v1 = createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex');
      const res = await fetch(webhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'merchant-signature': `t=${t},v1=${v1}`,
          'request-id': `evt_req_${randomBytes(4).toString('hex')}`,
        },
        body: raw,
      });
      const text = await res.text();
      const body: unknown = text ? JSON.parse(text) : undefined;
      validationErrors.push(
        ...checkResponseBody(
          'openapi.agentic_checkout_webhook.yaml',
          '/agentic_checkout/webhooks/order_events',
          'POST',
          res.status,
          body,
          `webhook receiver answer ${res.status}`,
        ),
      );
      return { status: res.status, body };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of held) r.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
