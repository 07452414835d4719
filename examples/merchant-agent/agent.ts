/**
 * Reference merchant agent: receives the gateway's `intent.surge` webhooks and answers with a
 * proposal. Deliberately self-contained (node:http + standardwebhooks, nothing from the gateway's
 * source) so a merchant can copy this file as a starting point.
 *
 * The contract it implements:
 *   1. verify the Standard Webhooks signature over the raw body (401 when it does not hold);
 *   2. de-duplicate by `webhook-id` (the gateway retries a delivery with the same id);
 *   3. answer 2xx fast (the gateway gives up after 15 s and retries), then submit the proposal;
 *   4. take `checkout.handoff` orders once per `Idempotency-Key` (the checkout id): the gateway may
 *      send one handoff more than once (a retry after a timeout or a crashed worker), always with
 *      the same key and body; every repeat answers the first order.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** The intent as `GET /v1/intents/{id}` returns it; only what an offer usually needs is typed. */
export interface SurgeIntent {
  intent_id: string;
  raw_query: string;
  normalized_query?: string;
  intent_tags?: string[];
  budget_range?: { min: number | null; max: number | null; currency: string } | null;
  region?: string | null;
  [field: string]: unknown;
}

/** `data` of an `intent.surge` webhook. */
export interface SurgeData {
  delivery_id: string;
  merchant_id: string;
  intent: SurgeIntent;
  reply: { proposals_url: string; respond_by: string };
}

export interface ShippingCommitment {
  min_days?: number;
  max_days?: number;
  cost?: number;
  free?: boolean;
  [field: string]: unknown;
}

export interface Offer {
  product_id: number;
  offer_title: string;
  price: number;
  shipping_commitment?: ShippingCommitment;
}

/** What happened to the proposal of an accepted surge. */
export type ProposalResult =
  | { outcome: 'submitted'; status: number; proposalId: string }
  | { outcome: 'failed'; status?: number; error: string }
  | { outcome: 'skipped'; reason: string };

/**
 * One webhook request on the agent's path. `accepted` events get `proposal` once the submission
 * has settled (see `waitForProposals`).
 */
/** An order taken from a `checkout.handoff`. */
export interface Order {
  order_id: string;
  /** The handoff's Idempotency-Key (= checkout id). */
  idempotency_key: string;
  checkout_id: string;
  amount: number;
  currency: string;
  received_at: string;
}

export interface AgentEvent {
  at: string;
  webhookId: string | null;
  outcome: 'accepted' | 'duplicate' | 'ignored' | 'rejected' | 'order' | 'duplicate_order';
  httpStatus: number;
  /** Why a request was rejected or ignored. */
  reason?: string;
  intentId?: string;
  proposal?: ProposalResult;
}

export interface MerchantAgentOptions {
  host?: string;
  port?: number;
  /** Path the gateway POSTs to (the path of the registered `agent_endpoint`). */
  path?: string;
  merchantId: string;
  /** `registration_token` from `POST /v1/merchant/register`, sent as X-Merchant-Token. */
  merchantToken: string;
  /** `webhook_secret` (`whsec_…`) from `POST /v1/merchant/register`. */
  webhookSecret: string;
  /** Developer API key, sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Picks the offer for an intent; null = no proposal. Default: `productId`/`price` (see `fixedOffer`). */
  chooseOffer?: (intent: SurgeIntent) => Offer | null | Promise<Offer | null>;
  productId?: number;
  price?: number;
  /** How many processed webhook-ids to remember (oldest forgotten first). */
  dedupCapacity?: number;
  /**
   * Takes an order from a `checkout.handoff` (reserve stock, create it in your shop); its `order_id`
   * (default `ord_<n>`) goes back to the gateway. Called once per Idempotency-Key; a throw answers
   * 500, so the gateway retries and this is called again.
   */
  acceptOrder?: (handoff: Record<string, unknown>) => Promise<{ order_id?: string } | void> | { order_id?: string } | void;
  /** How many orders to remember for de-duplication (oldest forgotten first; keep them in your database in production). */
  orderCapacity?: number;
  /** Called once per webhook when its handling is complete (after the proposal for accepted ones). */
  onEvent?: (event: AgentEvent) => void;
  fetchImpl?: typeof fetch;
}

export interface MerchantAgent {
  url: string;
  events: AgentEvent[];
  /** Orders taken, one per Idempotency-Key, oldest first. */
  orders(): Order[];
  /** Resolves with the first `n` accepted events whose proposal has settled; rejects after `timeoutMs`. */
  waitForProposals(n: number, timeoutMs?: number): Promise<AgentEvent[]>;
  /** Stops listening and waits (bounded) for proposal submissions still running. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;
const SUBMIT_TIMEOUT_MS = 10_000;
const SUBMIT_ATTEMPTS = 3;

/**
 * The default offer: one fixed product at a fixed price, skipped when that price is above the
 * shopper's USD budget (a proposal the shopper cannot afford only costs trust).
 */
export function fixedOffer(productId: number | undefined, price: number | undefined) {
  return (intent: SurgeIntent): Offer | null => {
    if (productId === undefined || price === undefined) return null;
    const budget = intent.budget_range;
    if (budget && budget.max !== null && (budget.currency ?? 'USD') === 'USD' && price > budget.max) return null;
    return {
      product_id: productId,
      offer_title: `Our pick for "${intent.normalized_query ?? intent.raw_query}"`,
      price,
      shipping_commitment: { max_days: 5, free: true },
    };
  };
}

/** A set that forgets its oldest members beyond `capacity` (Set iterates in insertion order). */
class BoundedSet {
  private readonly items = new Set<string>();
  constructor(private readonly capacity: number) {}
  has(id: string) {
    return this.items.has(id);
  }
  add(id: string) {
    this.items.add(id);
    while (this.items.size > this.capacity) {
      const oldest = this.items.values().next();
      if (oldest.done) break;
      this.items.delete(oldest.value);
    }
  }
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function header(req: IncomingMessage, name: string): string {
  const v = req.headers[name];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'payload_too_large', `Body over ${MAX_BODY_BYTES} bytes.`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...extra });
  res.end(text);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the members this agent relies on; the signature already proved the gateway sent it. */
function parseSurge(data: unknown): SurgeData {
  const bad = (what: string) => new HttpError(400, 'invalid_payload', `intent.surge without ${what}.`);
  if (!isObject(data)) throw bad('data');
  const { intent, reply } = data;
  if (!isObject(intent) || typeof intent.intent_id !== 'string') throw bad('data.intent.intent_id');
  if (!isObject(reply) || typeof reply.proposals_url !== 'string') throw bad('data.reply.proposals_url');
  return data as unknown as SurgeData;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startMerchantAgent(opts: MerchantAgentOptions): Promise<MerchantAgent> {
  const path = opts.path ?? '/intents';
  // Constructing the verifier up front makes a malformed secret fail at start, not per request.
  const webhook = new Webhook(opts.webhookSecret);
  const chooseOffer = opts.chooseOffer ?? fixedOffer(opts.productId, opts.price);
  const doFetch = opts.fetchImpl ?? fetch;
  const processed = new BoundedSet(opts.dedupCapacity ?? 10_000);
  // Idempotency-Key → the order (a promise while it is being taken, so a concurrent repeat waits for it).
  const orders = new Map<string, Promise<Order>>();
  const taken: Order[] = [];
  const orderCapacity = opts.orderCapacity ?? 10_000;
  const events: AgentEvent[] = [];
  const pending = new Set<Promise<void>>();
  const shutdown = new AbortController();
  let settledListeners: Array<() => void> = [];

  const record = (event: AgentEvent) => {
    events.push(event);
    if (event.outcome !== 'accepted') opts.onEvent?.(event);
  };

  async function submitOnce(url: string, webhookId: string, body: string): Promise<ProposalResult & { retry?: boolean }> {
    const res = await doFetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${opts.apiKey}`,
        'x-merchant-token': opts.merchantToken,
        'content-type': 'application/json',
        // Derived from the delivery, so our own retries below can never create a second proposal.
        'idempotency-key': `surge-${webhookId}`,
      },
      body,
      signal: AbortSignal.any([shutdown.signal, AbortSignal.timeout(SUBMIT_TIMEOUT_MS)]),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const proposal = isObject(parsed) && isObject(parsed.proposal) ? parsed.proposal : undefined;
    if (res.ok && typeof proposal?.proposal_id === 'string')
      return { outcome: 'submitted', status: res.status, proposalId: proposal.proposal_id };
    const error =
      isObject(parsed) && typeof parsed.error === 'string' ? `${parsed.error}: ${String(parsed.message ?? '')}` : text.slice(0, 200);
    // 5xx, 429 and "same key still in flight" are transient; other 4xx will not change on retry.
    const retry = res.status >= 500 || res.status === 429 || (isObject(parsed) && parsed.error === 'idempotency_in_flight');
    return { outcome: 'failed', status: res.status, error, retry };
  }

  async function submitProposal(surge: SurgeData, webhookId: string): Promise<ProposalResult> {
    let offer: Offer | null;
    try {
      offer = await chooseOffer(surge.intent);
    } catch (err) {
      return { outcome: 'failed', error: `chooseOffer threw: ${(err as Error).message}` };
    }
    if (!offer) return { outcome: 'skipped', reason: 'no offer for this intent' };
    const body = JSON.stringify({
      merchant_agent_id: opts.merchantId,
      intent_id: surge.intent.intent_id,
      product_id: offer.product_id,
      offer_title: offer.offer_title,
      price: offer.price,
      currency: 'USD',
      ...(offer.shipping_commitment ? { shipping_commitment: offer.shipping_commitment } : {}),
    });
    let last: ProposalResult = { outcome: 'failed', error: 'not attempted' };
    for (let attempt = 1; attempt <= SUBMIT_ATTEMPTS && !shutdown.signal.aborted; attempt++) {
      try {
        const { retry, ...result } = await submitOnce(surge.reply.proposals_url, webhookId, body);
        last = result;
        if (!retry) return last;
      } catch (err) {
        last = { outcome: 'failed', error: (err as Error).message };
      }
      if (attempt < SUBMIT_ATTEMPTS) await sleep(250 * 2 ** attempt);
    }
    return last;
  }

  function startSubmission(event: AgentEvent, surge: SurgeData, webhookId: string) {
    const task = submitProposal(surge, webhookId)
      .catch((err: unknown): ProposalResult => ({ outcome: 'failed', error: String(err) }))
      .then((result) => {
        event.proposal = result;
        opts.onEvent?.(event);
        for (const l of settledListeners) l();
      })
      .finally(() => pending.delete(task));
    pending.add(task);
  }

  /**
   * A checkout handoff: one order per Idempotency-Key. The key is claimed before the order is
   * taken, so a repeat that arrives while the first is still being handled waits for it and answers
   * the same order instead of taking a second one.
   */
  async function takeOrder(req: IncomingMessage, res: ServerResponse, message: Record<string, unknown>, webhookId: string) {
    const key = header(req, 'idempotency-key') || webhookId;
    const existing = orders.get(key);
    if (existing) {
      let order: Order;
      try {
        order = await existing;
      } catch {
        return sendJson(res, 500, { error: 'order_failed', message: 'The first attempt of this order failed; retry.' });
      }
      record({ at: new Date().toISOString(), webhookId, outcome: 'duplicate_order', httpStatus: 200, reason: `Idempotency-Key ${key}` });
      return sendJson(res, 200, { order_id: order.order_id, status: 'accepted', duplicate: true });
    }
    const pendingOrder = (async (): Promise<Order> => {
      const made = (await opts.acceptOrder?.(message)) ?? undefined;
      const order: Order = {
        order_id: made?.order_id ?? `ord_${taken.length + 1}`,
        idempotency_key: key,
        checkout_id: String(message.checkout_id ?? key),
        amount: Number(message.amount),
        currency: String(message.currency ?? ''),
        received_at: new Date().toISOString(),
      };
      taken.push(order);
      return order;
    })();
    orders.set(key, pendingOrder);
    while (orders.size > orderCapacity) orders.delete(orders.keys().next().value!);
    let order: Order;
    try {
      order = await pendingOrder;
    } catch (err) {
      orders.delete(key); // not taken: the gateway's retry may try again
      record({
        at: new Date().toISOString(),
        webhookId,
        outcome: 'rejected',
        httpStatus: 500,
        reason: `acceptOrder failed: ${(err as Error).message}`,
      });
      return sendJson(res, 500, { error: 'order_failed', message: (err as Error).message });
    }
    record({ at: new Date().toISOString(), webhookId, outcome: 'order', httpStatus: 200, reason: `Idempotency-Key ${key}` });
    return sendJson(res, 200, { order_id: order.order_id, status: 'accepted' });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://agent.local');
    if (url.pathname !== path) return sendJson(res, 404, { error: 'not_found', message: `POST webhooks to ${path}.` });
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'method_not_allowed', message: 'Only POST.' }, { allow: 'POST' });

    const webhookId = header(req, 'webhook-id') || null;
    const reject = (err: HttpError) => {
      record({ at: new Date().toISOString(), webhookId, outcome: 'rejected', httpStatus: err.status, reason: err.message });
      sendJson(res, err.status, { error: err.code, message: err.message });
    };

    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch (err) {
      return reject(err instanceof HttpError ? err : new HttpError(400, 'bad_request', 'Could not read the body.'));
    }

    // The signature covers `${webhook-id}.${webhook-timestamp}.${raw body}`: verify the bytes as
    // received, before any parsing. verify() also rejects timestamps more than 5 minutes off.
    try {
      webhook.verify(
        raw,
        {
          'webhook-id': header(req, 'webhook-id'),
          'webhook-timestamp': header(req, 'webhook-timestamp'),
          'webhook-signature': header(req, 'webhook-signature'),
        },
        { jsonParse: false },
      );
    } catch (err) {
      return reject(new HttpError(401, 'invalid_signature', (err as Error).message));
    }
    const id = webhookId!; // verify() fails without a webhook-id

    // A retry of something we already took: 2xx so the gateway stops, and nothing else. (Checkout
    // handoffs are de-duplicated by their Idempotency-Key in takeOrder, which answers the order.)
    if (processed.has(id)) {
      record({ at: new Date().toISOString(), webhookId: id, outcome: 'duplicate', httpStatus: 200 });
      return sendJson(res, 200, { status: 'duplicate' });
    }

    let message: unknown;
    try {
      message = JSON.parse(raw.toString('utf8'));
    } catch {
      return reject(new HttpError(400, 'invalid_payload', 'Body is not JSON.'));
    }
    if (isObject(message) && message.type === 'checkout.handoff') return takeOrder(req, res, message, id);
    // Unknown event types are acknowledged (202), not refused: a 4xx would only make the gateway
    // retry an event this agent will never understand.
    if (!isObject(message) || message.type !== 'intent.surge') {
      processed.add(id);
      const type = isObject(message) ? String(message.type) : typeof message;
      record({ at: new Date().toISOString(), webhookId: id, outcome: 'ignored', httpStatus: 202, reason: `type ${type}` });
      return sendJson(res, 202, { status: 'ignored' });
    }
    let surge: SurgeData;
    try {
      surge = parseSurge(message.data);
    } catch (err) {
      return reject(err as HttpError);
    }

    // Marked before answering, so a concurrent retry of the same delivery is already a duplicate.
    processed.add(id);
    const event: AgentEvent = {
      at: new Date().toISOString(),
      webhookId: id,
      outcome: 'accepted',
      httpStatus: 200,
      intentId: surge.intent.intent_id,
    };
    record(event);
    // Answer first: the gateway's clock (15 s) should not wait on our catalog or its own API.
    sendJson(res, 200, { status: 'accepted' });
    startSubmission(event, surge, id);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: 'internal', message: String(err) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;

  return {
    url: `http://${host}:${addr.port}${path}`,
    events,
    orders: () => [...taken],
    waitForProposals(n, timeoutMs = 10_000) {
      const done = () => events.filter((e) => e.proposal !== undefined);
      return new Promise((resolve, reject) => {
        const check = () => {
          const settled = done();
          if (settled.length < n) return false;
          clearTimeout(timer);
          settledListeners = settledListeners.filter((l) => l !== listener);
          resolve(settled.slice(0, n));
          return true;
        };
        const listener = () => void check();
        const timer = setTimeout(() => {
          settledListeners = settledListeners.filter((l) => l !== listener);
          reject(new Error(`waitForProposals: ${done().length} of ${n} settled after ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) settledListeners.push(listener);
      });
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      // Give running submissions a moment, then abort them; each records its result either way.
      const drained = Promise.allSettled([...pending]);
      const timer = setTimeout(() => shutdown.abort(), 2_000);
      await drained;
      clearTimeout(timer);
    },
  };
}
