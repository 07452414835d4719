import type { Db } from '../db/connect';
import { AppError } from '../errors';
import { fromMinorUnits, toMinorUnits } from '../money';
import { understandShoppingIntent } from '../recommend/understand';
import type { CatalogSnapshotCache } from '../recommend/catalog-snapshot';
import { RuntimeCreateBody, type RuntimeCreateInput } from '../schemas/runtime';
import { checkoutView, shippingMinor, type CheckoutView } from '../checkout/checkouts';
import { confirmCheckout, createCheckout, settledCheckout, type VerifyKeys } from '../checkout/client';
import { merchantReasonOf } from '../checkout/merchant-reason';
import { checkoutNextSteps, paymentVoided } from '../checkout/next-steps';
import type { TemporalHandle } from '../temporal/client';
import type { Caller } from '../tenancy';
import { runtimeTask, type Detail, type Runtime } from './runtime-task';
import type { Artifact, Message, MessageIn, Part, Task } from './types';
import type { PaymentCredential, SessionBuyer } from '../protocols/merchant-session';
import type { CheckoutCreateBody } from '../schemas/checkout';

/**
 * The shopper's whole journey over A2A: a text message ("find me trail running shoes under $120 and
 * buy the best one") is read with the recommend intent reader and runs the commerce runtime; when
 * the words ask to buy, the runtime's best proposal is planned for checkout and the task stops in
 * `input-required`, asking for the buyer's consent. The reply (a data part with the consent fields,
 * or words like "yes, buy it") confirms the checkout, and the task completes with the receipt (or,
 * for a merchant the gateway hands the buyer to, the `continue_url`).
 *
 * Nothing is stored beside the run: the task is the runtime (same id), whether the buyer asked to
 * buy is kept in the run's request (`request.a2a.buy`), and the checkout is the one planned with the
 * run's match token. So `GetTask` rebuilds the same task from Postgres at any time.
 */

export interface JourneyDeps {
  /** Who the journey runs for: checkouts are planned and confirmed as that developer. */
  caller: Caller;
  db: Db;
  temporal: TemporalHandle | null;
  catalogSnapshots: CatalogSnapshotCache;
  verifyKeys: VerifyKeys;
  /** Seals a payment credential the buyer sends with its consent (src/checkout/client.ts). */
  keyEncryptionKey?: Buffer;
  defaultPaymentHandler?: string;
}

/** Who plans the checkout of a run started over A2A (the plan's `buyer_agent_id`). */
export const A2A_BUYER_AGENT = 'a2a-client';

const BUY_WORDS = /\b(buy|purchase|order|check\s?out)\b/i;
const NOT_BUYING = /\b(don'?t|do not|never|without)\s+(buy|buying|purchase|purchasing|order|ordering)\b/i;

/** Whether the shopper's words ask the agent to buy, not only to find. */
export const asksToBuy = (text: string) => BUY_WORDS.test(text) && !NOT_BUYING.test(text);

/**
 * A shopping request in words → the runtime body, read exactly as GET /v1/recommend reads its
 * intent: keywords become the intent tags merchants subscribe to, "under $120" the budget ceiling,
 * plus region and audience. Words the reader finds nothing in are refused (-32602 by the caller).
 */
export async function runtimeFromText(deps: { db: Db; catalogSnapshots: CatalogSnapshotCache }, text: string): Promise<RuntimeCreateInput> {
  const snapshot = await deps.catalogSnapshots.get(deps.db);
  const si = understandShoppingIntent(text, { categories: snapshot.categories, priceQuartiles: snapshot.priceQuartiles });
  if (!si.keywords.length && !si.categories.length) {
    throw new AppError(
      400,
      'missing_intent',
      'The text names nothing to shop for. Say what you are looking for, e.g. "trail running shoes under $120".',
    );
  }
  const cents = (c: number | null) => (c === null ? undefined : c / 100);
  return RuntimeCreateBody.parse({
    intent: {
      raw_query: text.trim().slice(0, 2000),
      intent_tags: si.keywords.slice(0, 50).map((k) => k.slice(0, 64)),
      ...(si.budget ? { budget_range: { min: cents(si.budget.minCents), max: cents(si.budget.maxCents), currency: 'USD' } } : {}),
      ...(si.region ? { region: si.region.code } : {}),
      ...(si.audience ? { target_audience: si.audience.label.slice(0, 200) } : {}),
      source_channel: 'a2a',
      metadata: { a2a: { resolved_categories: si.categories.map((c) => c.path) } },
    },
    runtime_session: { entry_agent_id: A2A_BUYER_AGENT, mode: 'assisted' },
  });
}

/** The latest checkout planned with a match token. */
async function checkoutForToken(db: Db, matchTokenId: string) {
  const row = await db
    .selectFrom('agentic_checkouts')
    .selectAll()
    .where('match_token_id', '=', matchTokenId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? checkoutView(row) : null;
}

/**
 * Plans the checkout of the run's chosen proposal (amount = price + shipping, as POST /v1/agentic-checkout
 * expects): for a request to buy, or the buyer's "buy it" to a found offer.
 */
async function planBuy(deps: JourneyDeps, runtime: Runtime, purchase?: Purchase): Promise<CheckoutView> {
  const p = runtime.proposal!;
  const amountMinor =
    toMinorUnits(p.price ?? 0, p.currency) + shippingMinor((p.shipping_commitment ?? {}) as Record<string, unknown>, p.currency);
  try {
    return await settledCheckout(
      deps.db,
      await createCheckout(
        deps.temporal,
        deps.db,
        {
          buyer_agent_id: A2A_BUYER_AGENT,
          intent_id: runtime.intent!.intent_id,
          proposal_id: p.proposal_id,
          match_token_id: runtime.match_token!.match_token_id,
          amount: fromMinorUnits(amountMinor, p.currency),
          currency: p.currency,
          ...(purchase?.buyer ? { buyer: purchase.buyer } : {}),
          ...(purchase?.shipping_address ? { shipping_address: purchase.shipping_address } : {}),
          metadata: { a2a_task_id: runtime.runtime_session.runtime_id },
        },
        deps.caller,
        undefined,
        undefined,
        'a2a',
      ),
    );
  } catch (err) {
    // Planned meanwhile by a concurrent GetTask: that plan is this task's.
    if (err instanceof AppError && err.code === 'match_token_in_checkout') {
      const existing = await checkoutForToken(deps.db, runtime.match_token!.match_token_id);
      if (existing) return existing;
    }
    throw err;
  }
}

const money = (amount: number, currency: string) => `${amount.toFixed(2)} ${currency}`;

function agentMessage(taskId: string, contextId: string, suffix: string, text: string, data?: Record<string, unknown>): Message {
  const parts: Part[] = [{ kind: 'text', text }];
  if (data) parts.push({ kind: 'data', data });
  return { kind: 'message', messageId: `${taskId}-${suffix}`, role: 'agent', parts, taskId, contextId };
}

/**
 * The checkout with the members an agent acts on, in the shape of the full document (a projection):
 * status, seller, total, the order or the page to continue on, and why it failed.
 */
export function compactCheckout(c: CheckoutView) {
  const receipt = c.receipt as {
    receipt_id?: string;
    status?: string;
    merchant_response?: { status_code?: number; order_id?: string | null };
    continue_url?: string;
  } | null;
  const failure = c.failure as { status?: number; code?: string; message?: string; merchant_reason?: string | null } | null;
  return {
    checkout_id: c.checkout_id,
    status: c.status,
    checkout_mode: c.checkout_mode,
    merchant_id: c.merchant_id,
    proposal_id: c.proposal_id,
    match_token_id: c.match_token_id,
    amount: c.amount,
    currency: c.currency,
    expires_at: c.expires_at,
    continue_url: c.continue_url,
    payment_authorization_id: c.payment_authorization_id,
    plan: {
      line_items: c.plan.line_items.map((l) => ({ title: l.title, quantity: l.quantity, amount_minor: l.amount_minor })),
      totals: c.plan.totals,
    },
    receipt: receipt
      ? {
          receipt_id: receipt.receipt_id ?? null,
          status: receipt.status ?? null,
          ...(receipt.merchant_response
            ? {
                merchant_response: {
                  status_code: receipt.merchant_response.status_code,
                  order_id: receipt.merchant_response.order_id ?? null,
                },
              }
            : {}),
          ...(receipt.continue_url ? { continue_url: receipt.continue_url } : {}),
        }
      : null,
    failure: failure
      ? { status: failure.status, code: failure.code, message: failure.message, merchant_reason: failure.merchant_reason ?? null }
      : null,
  };
}

const checkoutArtifact = (taskId: string, checkout: CheckoutView, detail: Detail): Artifact => ({
  artifactId: `${taskId}-checkout`,
  name: 'agentic_checkout',
  description:
    detail === 'full'
      ? 'The checkout of the chosen proposal: plan, consent, receipt and audit trail (as GET /v1/agentic-checkout/{id}).'
      : 'The checkout of the chosen proposal, compact: status, seller, total, the order or the page to continue on (metadata.detail "full" for the whole document).',
  parts: [{ kind: 'data', data: { checkout: detail === 'full' ? checkout : compactCheckout(checkout) } }],
});

/** The words for a price with its shipping, as the proposal states them. */
function priceWithShipping(p: NonNullable<Runtime['proposal']>): string {
  const shipping = shippingMinor((p.shipping_commitment ?? {}) as Record<string, unknown>, p.currency);
  const price = money(p.price ?? 0, p.currency);
  return shipping === 0
    ? `${price} with free shipping`
    : `${price} plus ${money(fromMinorUnits(shipping, p.currency), p.currency)} shipping`;
}

/** The token of a found offer can still buy it (accepted, or paid for by the run, and unexpired). */
const tokenUsable = (t: NonNullable<Runtime['match_token']>) =>
  (t.acceptance_state === 'accepted' || t.acceptance_state === 'payment_authorized') && Date.parse(t.expires_at ?? '') > Date.now();

/**
 * A request that only asked to find: what was found (product, price, merchant) and how to buy it.
 * While its match token can buy it the task waits for the buyer (`input-required`): a reply on the
 * task that says to buy plans the checkout and asks for consent to its total. A lapsed offer is a
 * finished search (`completed`).
 */
function foundTask(task: Task, runtime: Runtime, contextId: string): Task {
  const p = runtime.proposal!;
  const t = runtime.match_token!;
  const found = {
    proposal_id: p.proposal_id,
    product_id: p.product_id,
    title: p.offer_title,
    merchant_id: p.merchant_agent_id,
    price: p.price,
    currency: p.currency,
  };
  const what = `${p.offer_title} from ${p.merchant_agent_id} at ${priceWithShipping(p)}`;
  const now = new Date().toISOString();
  if (tokenUsable(t)) {
    task.status = {
      state: 'input-required',
      timestamp: now,
      message: agentMessage(
        task.id,
        contextId,
        'found',
        `Found: ${what}. To buy it, reply on this task with "buy it": the checkout is planned and its total (with shipping and any tax) shown to you for your explicit consent; nothing is charged before you confirm. The offer holds until ${t.expires_at}.`,
        { found, match_token_id: t.match_token_id, expires_at: t.expires_at, reply_with: { text: 'buy it' } },
      ),
    };
  } else {
    task.status = {
      state: 'completed',
      timestamp: now,
      message: agentMessage(
        task.id,
        contextId,
        'found-lapsed',
        `Found: ${what}, but the offer is no longer open (match token ${t.acceptance_state}, until ${t.expires_at}). Send a new message to search again.`,
        { found, match_token_id: t.match_token_id, acceptance_state: t.acceptance_state },
      ),
    };
  }
  return task;
}

/** What the buyer is asked to send to confirm (also shown in the task's status message). */
export function consentRequest(checkout: CheckoutView) {
  return {
    checkout_id: checkout.checkout_id,
    amount: checkout.amount,
    currency: checkout.currency,
    expires_at: checkout.expires_at,
    reply_with: {
      text: 'yes, buy it',
      data: { consent: { granted: true, statement: `I agree to buy this for ${money(checkout.amount, checkout.currency)}.` } },
    },
    // A UCP/ACP merchant is paid through one of its handlers: the consent's data part may carry
    // `payment_credential: {handler, token}` (else the deployment's configured handler is used).
    ...(checkout.merchant_session ? { payment_handlers: checkout.merchant_session.payment_handlers } : {}),
  };
}

/** Where a checkout that the gateway handed to the merchant continues (merchant_redirect mode), when it has one. */
const continueUrl = (c: CheckoutView): string | null => {
  const v = (c as unknown as { continue_url?: unknown }).continue_url;
  return typeof v === 'string' ? v : null;
};

/**
 * A run as a task, with the buy steps when its words asked to buy. `plan` (message paths, and
 * GetTask of a run that finished after its SendMessage answered) plans the checkout when the run
 * has just finished with a match token and none is planned yet.
 */
export async function journeyTask(
  deps: JourneyDeps,
  runtime: Runtime,
  contextId: string,
  opts: { buy: boolean; workflowEnded?: boolean; plan: boolean; purchase?: Purchase; detail?: Detail },
): Promise<Task> {
  const detail = opts.detail ?? 'summary';
  const task = runtimeTask(runtime, contextId, { workflowEnded: opts.workflowEnded, detail });
  const id = task.id;
  if (task.status.state !== 'completed') return task;
  const token = runtime.match_token;
  const proposal = runtime.proposal;
  if (!token || !proposal) {
    const asked = runtime.intent?.raw_query ? ` for "${runtime.intent.raw_query.slice(0, 200)}"` : '';
    task.status.message = agentMessage(
      id,
      contextId,
      'nothing-to-buy',
      `Found nothing to buy${asked}: no proposal fit (stage ${runtime.runtime_session.stage}, audit ${runtime.runtime_trace.audit_status}). Send a new message to search again, in other words or with another budget.`,
    );
    return task;
  }
  // The checkout of this run's token, whoever planned it (a buy request, the reply to a find, the skill).
  let checkout = await checkoutForToken(deps.db, token.match_token_id);
  if (!checkout && opts.buy && opts.plan) {
    try {
      checkout = await planBuy(deps, runtime, opts.purchase);
    } catch (err) {
      // A business rejection of the plan ends the task; an outage (5xx) is the caller's error to retry.
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      task.status = {
        state: 'failed',
        timestamp: new Date().toISOString(),
        message: agentMessage(id, contextId, 'plan-failed', `Could not plan the checkout of ${proposal.offer_title}: ${err.message}`, {
          error: err.code,
          message: err.message,
        }),
      };
      return task;
    }
  }
  if (!checkout) return opts.buy ? task : foundTask(task, runtime, contextId);

  task.artifacts = [...(task.artifacts ?? []), checkoutArtifact(id, checkout, detail)];
  task.metadata = { ...task.metadata, checkout_id: checkout.checkout_id, checkout_url: `/v1/agentic-checkout/${checkout.checkout_id}` };
  const what = `${proposal.offer_title} from ${proposal.merchant_agent_id}`;
  const now = new Date().toISOString();
  const status = checkout.status as string;
  if (status === 'awaiting_confirmation') {
    task.status = {
      state: 'input-required',
      timestamp: now,
      message: agentMessage(
        id,
        contextId,
        'consent',
        `Best match: ${what} at ${money(proposal.price ?? 0, proposal.currency)}; total with shipping ${money(checkout.amount, checkout.currency)}. ` +
          `To buy it, reply on this task with your explicit consent: "yes, buy it", or a data part {"consent": {"granted": true, "statement": "..."}}. ` +
          `The offer holds until ${checkout.expires_at}; nothing is charged before you confirm.`,
        { consent_request: consentRequest(checkout) },
      ),
    };
  } else if (status === 'confirming') {
    task.status = {
      state: 'working',
      timestamp: now,
      message: agentMessage(id, contextId, 'confirming', `Confirming the purchase of ${what}; poll GetTask.`),
    };
  } else if (status === 'confirmed' || status === 'handed_off') {
    const receipt = (checkout.receipt ?? {}) as { receipt_id?: string; merchant_response?: { order_id?: string | null } };
    const url = continueUrl(checkout);
    const orderId = receipt.merchant_response?.order_id ?? null;
    const text = url
      ? `Handed off: finish the purchase of ${what} (${money(checkout.amount, checkout.currency)}) at ${url}.`
      : `Bought ${what} for ${money(checkout.amount, checkout.currency)}: order ${orderId ?? '(no order id from the merchant)'}, receipt ${receipt.receipt_id ?? '-'}.`;
    task.status = {
      state: 'completed',
      timestamp: checkout.confirmed_at ?? now,
      message: agentMessage(id, contextId, 'bought', text, {
        checkout_id: checkout.checkout_id,
        status: checkout.status,
        order_id: orderId,
        receipt_id: receipt.receipt_id ?? null,
        continue_url: url,
      }),
    };
  } else {
    // Failed or expired: why, the merchant's own reason, whether money was voided, and the next steps
    // as the checkout's state allows them (the same steps REST and MCP answer, worded for A2A).
    const f = (checkout.failure ?? {}) as { code?: string; message?: string; merchant_reason?: string | null };
    const why = status === 'expired' ? 'the offer expired before it was confirmed' : `${f.code ?? 'failed'}: ${f.message ?? ''}`.trim();
    const reason = f.merchant_reason ?? merchantReasonOf(checkout.audit_trail);
    const voided = paymentVoided(checkout);
    const steps = await checkoutNextSteps(deps.db, checkout, 'a2a');
    const text =
      `Not bought (${why}).` +
      (reason ? ` ${checkout.merchant_id} said: "${reason}".` : '') +
      (voided ? ' The payment authorization was voided: nothing is charged.' : '') +
      ` Next: ${steps.map((s) => `${s.description} (${s.how})`).join(' Or: ')}`;
    task.status = {
      state: 'failed',
      timestamp: now,
      message: agentMessage(id, contextId, 'checkout-failed', text, {
        checkout_id: checkout.checkout_id,
        status,
        error: f.code ?? status,
        merchant_reason: reason,
        payment_voided: voided,
        next_steps: steps.map((s) => ({ action: s.action, description: s.description, how: s.how })),
      }),
    };
  }
  return task;
}

export type ConsentReply =
  | { kind: 'consent'; consent: { granted: boolean; statement?: string; granted_at?: string }; payment_credential?: PaymentCredential }
  | { kind: 'declined' }
  | { kind: 'unclear' };

/** The buyer's details a protocol merchant needs (sent as a `{"purchase": {...}}` data part with the request). */
export interface Purchase {
  buyer?: SessionBuyer;
  shipping_address?: CheckoutCreateBody['shipping_address'];
}

/** A payment credential in the consent's data part (`payment_credential: {handler, token}`), when well formed. */
function credentialOf(data: Record<string, unknown>): PaymentCredential | undefined {
  const c = data.payment_credential as Record<string, unknown> | undefined;
  return c && typeof c.handler === 'string' && typeof c.token === 'string' && c.handler && c.token
    ? { handler: c.handler, token: c.token }
    : undefined;
}

const YES = /\b(yes|yeah|yep|sure|ok(?:ay)?|confirm(?:ed)?|go ahead|proceed|buy it|buy|purchase|place the order)\b/i;
const NO = /\b(no|nope|don'?t|do not|cancel|stop|not|never)\b/i;

/**
 * The buyer's answer to the consent request: a data part carrying the consent fields
 * (`{consent: {...}}` or the fields themselves), or words. Words count as consent only when they
 * say yes and nothing negative; the words are kept as the consent statement, with what they agree to.
 */
export function readConsent(message: MessageIn, checkout: CheckoutView, what: string): ConsentReply {
  for (const p of message.parts) {
    if (p.kind !== 'data') continue;
    const c = (
      typeof p.data.consent === 'object' && p.data.consent !== null ? p.data.consent : typeof p.data.granted === 'boolean' ? p.data : null
    ) as Record<string, unknown> | null;
    if (c) {
      const credential = credentialOf(p.data);
      return {
        kind: 'consent',
        ...(credential ? { payment_credential: credential } : {}),
        consent: {
          granted: c.granted === true,
          ...(typeof c.statement === 'string' ? { statement: c.statement } : {}),
          ...(typeof c.granted_at === 'string' ? { granted_at: c.granted_at } : {}),
        },
      };
    }
  }
  const words = message.parts
    .flatMap((p) => (p.kind === 'text' ? [p.text] : []))
    .join(' ')
    .trim();
  if (!words) return { kind: 'unclear' };
  if (NO.test(words)) return { kind: 'declined' };
  if (!YES.test(words)) return { kind: 'unclear' };
  const statement = `The buyer answered "${words.slice(0, 500)}" to buying ${what} for ${money(checkout.amount, checkout.currency)} (checkout ${checkout.checkout_id}).`;
  return { kind: 'consent', consent: { granted: true, statement, granted_at: new Date().toISOString() } };
}

/**
 * The buyer's answer to a found offer ("buy it"): words that say yes (or to buy) and nothing negative,
 * or a data part with a granted consent, ask to buy it; the checkout is then planned and its total put
 * to the buyer for consent (readConsent), so nothing is confirmed by this answer.
 */
export function readBuyReply(message: MessageIn): 'buy' | 'declined' | 'unclear' {
  for (const p of message.parts) {
    if (p.kind !== 'data') continue;
    const c = (
      typeof p.data.consent === 'object' && p.data.consent !== null ? p.data.consent : typeof p.data.granted === 'boolean' ? p.data : null
    ) as Record<string, unknown> | null;
    if (c) return c.granted === true ? 'buy' : 'declined';
  }
  const words = message.parts
    .flatMap((p) => (p.kind === 'text' ? [p.text] : []))
    .join(' ')
    .trim();
  if (!words) return 'unclear';
  if (NO.test(words)) return 'declined';
  return YES.test(words) ? 'buy' : 'unclear';
}

/** Confirms the planned checkout with the buyer's consent, as POST /v1/agentic-checkout/{id}/confirm does. */
export async function confirmBuy(
  deps: JourneyDeps,
  runtime: Runtime,
  checkout: CheckoutView,
  consent: { granted: boolean; statement?: string; granted_at?: string },
  paymentCredential?: PaymentCredential,
): Promise<void> {
  await confirmCheckout(
    {
      db: deps.db,
      temporal: deps.temporal,
      keys: deps.verifyKeys,
      keyEncryptionKey: deps.keyEncryptionKey,
      defaultPaymentHandler: deps.defaultPaymentHandler,
    },
    checkout.checkout_id,
    {
      consent,
      match_token: runtime.match_token!.signed_token,
      proposal_id: checkout.proposal_id,
      amount: checkout.amount,
      currency: checkout.currency,
      ...(paymentCredential ? { payment_credential: paymentCredential } : {}),
    },
    deps.caller,
  );
}

export { checkoutForToken };
