import { z } from 'zod';
import { fromMinorUnits } from '../money';
import type { ProductCardDocumentT } from '../schemas/catalog';
import type { CheckoutView } from '../checkout/checkouts';
import { merchantReasonOf } from '../checkout/merchant-reason';
import { paymentVoided, type NextStep } from '../checkout/next-steps';
import type { IntentView } from '../matching/intents';
import type { ProposalView } from '../matching/proposals';
import type { RankedProposal } from '../schemas/match';
import type { loadRuntime } from '../runtime/store';
import type { RecommendResult } from '../recommend/recommend';

/**
 * The compact answers of the MCP tools (docs/MCP.md): what an LLM needs to choose and act (ids,
 * titles, prices, why, the next step), a few hundred bytes where the full documents are tens of KB.
 * `detail: "full"` adds the REST body under `full`. Each shape is also the tool's outputSchema, so
 * what is built here is exactly what clients validate against.
 */

/**
 * Nullable, spelled as `anyOf` branches of one `type` each: zod writes `.nullable()` of a scalar as a
 * `type` array, which clients mapping schemas onto a single-`type` dialect reject (the MCP Inspector's
 * `--strict` flags it).
 */
const orNull = <T extends z.ZodType>(s: T) => z.union([s, z.null().meta({ description: 'null: not known, or not applicable.' })]);
const money = { price: orNull(z.number()).meta({ description: 'Major units, e.g. 93.89.' }), currency: z.string() };
// `additionalProperties: true` says "any JSON object" outright (zod's default `{}` constrains nothing).
const full = z
  .record(z.string(), z.unknown())
  .optional()
  .meta({ description: 'Only with detail "full": the full REST response body.', additionalProperties: true });
const nextStep = z.string().meta({ description: 'What to do next, in words, naming the tool to call.' });

export const Pick = z.object({
  rank: z.number().int(),
  proposal_id: z.string(),
  product_id: z.number().int(),
  merchant_id: z.string(),
  title: z.string(),
  ...money,
  why: z.string().meta({ description: 'Why it is at this rank.' }),
  buy_url: orNull(z.string()).meta({ description: "The card's attributed link (cta.primary.url): pass it to the user verbatim." }),
});
type PickT = z.infer<typeof Pick>;

const OfferBrief = z.object({
  proposal_id: orNull(z.string()),
  product_id: z.number().int(),
  merchant_id: z.string(),
  seller: orNull(z.string()).meta({ description: 'The seller name its feed states.' }),
  ...money,
  availability: z.string(),
  buy_url: z.string().meta({ description: "This seller's attributed link: pass it to the user verbatim." }),
});

/** A recommended product with every seller's offer (one product from several merchants is one pick). */
const RecommendPick = Pick.extend({
  offers: z.array(OfferBrief).meta({
    description:
      'When several merchants sell this product: each seller, cheapest available first; to buy from one, call accept_match with its proposal_id (the pick itself is the first-ranked seller). Empty when the pick is the only seller.',
  }),
});
type RecommendPickT = z.infer<typeof RecommendPick>;

const TokenBrief = z.object({
  match_token_id: z.string(),
  proposal_id: z.string(),
  acceptance_state: z.string(),
  amount: z.number(),
  currency: z.string(),
});

export const RecommendOut = z.object({
  intent_id: z.string(),
  match_session_id: z.string(),
  best_proposal_id: orNull(z.string()),
  shopper_guide: z.string(),
  note: orNull(z.string()),
  items: z.array(RecommendPick),
  next_step: nextStep,
  full,
});

export const IntentOut = z.object({
  intent_id: z.string(),
  raw_query: z.string(),
  intent_tags: z.array(z.string()),
  budget: z.object({ min: orNull(z.number()), max: orNull(z.number()), currency: z.string() }).nullable(),
  region: orNull(z.string()),
  next_step: nextStep,
  full,
});

export const ProposalsOut = z.object({
  intent_id: z.string(),
  count: z.number().int(),
  proposals: z.array(
    z.object({
      proposal_id: z.string(),
      merchant_id: z.string(),
      product_id: z.number().int(),
      title: z.string(),
      ...money,
      proposal_state: z.string(),
      inventory_status: z.string(),
      trust_risk: orNull(z.string()),
    }),
  ),
  next_step: nextStep,
  full,
});

export const SessionOut = z.object({
  match_session_id: z.string(),
  intent_id: z.string(),
  status: z.string(),
  best_proposal_id: orNull(z.string()),
  ordered_by: z.string().meta({ description: "score (match ranking) or recommendation (the recommendation's order)." }),
  ranked: z.array(Pick),
  match_tokens: z.array(TokenBrief),
  next_step: nextStep,
  full,
});

export const TokenOut = z.object({
  match_token_id: z.string(),
  match_session_id: z.string(),
  intent_id: z.string(),
  proposal_id: z.string(),
  acceptance_state: z.string(),
  amount: z.number(),
  currency: z.string(),
  expires_at: z.string(),
  next_step: nextStep,
  full,
});

export const CheckoutOut = z.object({
  checkout_id: z.string(),
  status: z.string().meta({ description: 'awaiting_confirmation, confirmed, handed_off, expired or failed.' }),
  checkout_mode: orNull(z.string()).meta({
    description:
      'agent_handoff (the merchant agent takes the order) or merchant_redirect (the user finishes on the merchant page at continue_url).',
  }),
  proposal_id: z.string(),
  merchant_id: z.string(),
  line_items: z.array(z.object({ title: z.string(), quantity: z.number().int(), amount: z.number() })),
  total: z.number().meta({ description: "Plan total in major units: what confirm_checkout's amount must equal." }),
  currency: z.string(),
  expires_at: z.string(),
  order_id: orNull(z.string()).meta({ description: "The merchant's order id once handed off." }),
  receipt_id: orNull(z.string()),
  continue_url: orNull(z.string()).meta({ description: 'Where the user finishes the purchase (merchant_redirect): pass it verbatim.' }),
  failure: z
    .object({
      code: z.string(),
      message: z.string(),
      merchant_reason: orNull(z.string()).meta({ description: "The merchant's own reason when it refused the order; tell the user." }),
      payment_voided: z.boolean().meta({ description: 'The payment authorization was voided: nothing is charged.' }),
    })
    .nullable(),
  next_step: nextStep,
  next_steps: z.array(z.object({ action: z.string(), description: z.string(), how: z.string() })).meta({
    description: 'What can be done next, best first (the same steps GET /v1/agentic-checkout/{id} lists); next_step says them in one text.',
  }),
  full,
});

export const RuntimeOut = z.object({
  runtime_id: z.string(),
  status: z.enum(['running', 'finished']),
  stage: orNull(z.string()),
  audit_status: orNull(z.string()),
  intent_id: orNull(z.string()),
  match_session_id: orNull(z.string()),
  proposal: z
    .object({ proposal_id: z.string(), merchant_id: z.string(), product_id: z.number().int(), title: z.string(), ...money })
    .nullable(),
  match_token: TokenBrief.nullable(),
  steps: z.array(z.object({ index: z.number().int(), kind: z.string(), agent_id: z.string(), status: z.string() })),
  next_step: nextStep,
  full,
});

/** The two strongest components of a ranking entry, as its reason. */
function rankingWhy(r: RankedProposal): string {
  const strongest = Object.entries(r.breakdown)
    .sort((a, b) => b[1].contribution - a[1].contribution)
    .slice(0, 2)
    .map(([k, v]) => `${k}: ${v.reason}`);
  return `score ${r.score}; ${strongest.join('; ')}`;
}

/** The attributed link of each product the cards show: a card's own, and each other seller's offer on it. */
function buyUrls(cards: ProductCardDocumentT[]): Map<number, string> {
  const urls = new Map<number, string>();
  for (const c of cards) urls.set(Number(c.product.id), c.cta.primary.url);
  for (const c of cards) for (const o of c.offers ?? []) if (!urls.has(Number(o.product_id))) urls.set(Number(o.product_id), o.url);
  return urls;
}

function pickOf(r: RankedProposal, buyUrl: string | undefined, why?: string): PickT {
  return {
    rank: r.rank,
    proposal_id: r.proposal_id,
    product_id: r.product_id,
    merchant_id: r.merchant_agent_id,
    title: r.offer_title,
    price: r.price,
    currency: r.currency,
    why: why ?? rankingWhy(r),
    buy_url: buyUrl ?? null,
  };
}

const withFull = <T extends object>(summary: T, detail: Detail, body: unknown): T & { full?: Record<string, unknown> } =>
  detail === 'full' ? { ...summary, full: body as Record<string, unknown> } : summary;

export type Detail = 'summary' | 'full';

export function recommendSummary(r: RecommendResult, detail: Detail) {
  const byProduct = new Map(r.proposals.map((p) => [p.product_id, p]));
  const items: RecommendPickT[] = r.items.flatMap((card, i) => {
    const p = byProduct.get(Number(card.product.id));
    if (!p) return [];
    return {
      rank: i + 1,
      proposal_id: p.proposal_id,
      product_id: p.product_id,
      merchant_id: p.merchant_agent_id,
      title: card.product.title,
      price: p.price,
      currency: p.currency,
      why: card.selection_story.headline,
      buy_url: card.cta.primary.url,
      offers: (card.offers && card.offers.length > 1 ? card.offers : []).map((o) => ({
        proposal_id: o.proposal_id,
        product_id: Number(o.product_id),
        merchant_id: o.merchant_id,
        seller: o.seller,
        price: o.price.amount,
        currency: o.price.currency,
        availability: o.availability,
        buy_url: o.url,
      })),
    };
  });
  const best = items[0];
  return withFull(
    {
      intent_id: r.intent_id,
      match_session_id: r.match_session_id,
      best_proposal_id: best?.proposal_id ?? null,
      shopper_guide: r.shopper_guide,
      note: r.note,
      items,
      next_step: best
        ? `Show the picks with their buy_url. To buy the top pick (${best.title}), call accept_match with match_session_id (proposal_id defaults to it), then plan_checkout.`
        : 'Nothing to recommend: ask the user to rephrase, or call create_intent to ask merchants.',
    },
    detail,
    r,
  );
}

export function intentSummary(i: IntentView, detail: Detail) {
  return withFull(
    {
      intent_id: i.intent_id,
      raw_query: i.raw_query,
      intent_tags: i.intent_tags,
      budget: i.budget_range,
      region: i.region,
      next_step:
        'Merchants subscribed to its tags are asked for proposals now. Call list_proposals with intent_id in a few seconds, then create_match to rank them.',
    },
    detail,
    { intent: i },
  );
}

export function proposalsSummary(intentId: string, proposals: ProposalView[], detail: Detail) {
  return withFull(
    {
      intent_id: intentId,
      count: proposals.length,
      proposals: proposals.map((p) => ({
        proposal_id: p.proposal_id,
        merchant_id: p.merchant_agent_id,
        product_id: p.product_id,
        title: p.offer_title,
        price: p.price,
        currency: p.currency,
        proposal_state: p.proposal_state,
        inventory_status: p.inventory_status,
        trust_risk: typeof p.trust_score.risk === 'string' ? p.trust_score.risk : null,
      })),
      next_step: proposals.length
        ? 'Call create_match with intent_id to rank them (best first).'
        : 'No proposal yet: merchants answer within seconds; call list_proposals again shortly.',
    },
    detail,
    { intent_id: intentId, count: proposals.length, proposals },
  );
}

interface SessionLike {
  match_session_id: string;
  intent_id: string;
  status: string;
  best_proposal_id: string | null;
  summary: Record<string, unknown>;
}

export function sessionSummary(
  s: SessionLike,
  ranked: RankedProposal[],
  tokens: Array<{ match_token_id: string; proposal_id: string; acceptance_state: string; amount: number; currency: string }>,
  cards: ProductCardDocumentT[],
  detail: Detail,
  body: unknown,
) {
  const urls = buyUrls(cards);
  const best = ranked[0];
  return withFull(
    {
      match_session_id: s.match_session_id,
      intent_id: s.intent_id,
      status: s.status,
      best_proposal_id: s.best_proposal_id,
      ordered_by: typeof s.summary.ordered_by === 'string' ? s.summary.ordered_by : 'score',
      ranked: ranked.map((r) => pickOf(r, urls.get(r.product_id))),
      match_tokens: tokens.map((t) => ({
        match_token_id: t.match_token_id,
        proposal_id: t.proposal_id,
        acceptance_state: t.acceptance_state,
        amount: t.amount,
        currency: t.currency,
      })),
      next_step: best
        ? `To buy the best (${best.offer_title}, ${best.price} ${best.currency}), call accept_match with match_session_id (or name another proposal_id), then plan_checkout.`
        : 'Nothing was ranked: wait for proposals (list_proposals) and call create_match again.',
    },
    detail,
    body,
  );
}

export function tokenSummary(
  t: {
    match_token_id: string;
    match_session_id: string;
    intent_id: string;
    proposal_id: string;
    acceptance_state: string;
    amount: number;
    currency: string;
    expires_at: string;
  },
  detail: Detail,
  body: unknown,
) {
  return withFull(
    {
      match_token_id: t.match_token_id,
      match_session_id: t.match_session_id,
      intent_id: t.intent_id,
      proposal_id: t.proposal_id,
      acceptance_state: t.acceptance_state,
      amount: t.amount,
      currency: t.currency,
      expires_at: t.expires_at,
      next_step: `Call plan_checkout with match_token_id and buyer_agent_id (and the shipping address) before ${t.expires_at}.`,
    },
    detail,
    body,
  );
}

/** Members another checkout mode may add to the view (merchant_redirect): read when present. */
type CheckoutExtras = { checkout_mode?: string; continue_url?: string | null };

/** The merchant's reason as the failure stored it (or, for failures stored before, its audit trail). */
const merchantReasonOfCheckout = (c: CheckoutView) =>
  (c.failure as { merchant_reason?: string | null } | null)?.merchant_reason ?? merchantReasonOf(c.audit_trail);

/**
 * A checkout with its next steps (src/checkout/next-steps.ts, worded for MCP): the same steps REST
 * answers, so get_checkout and a failed confirm_checkout say the same thing.
 */
export function checkoutSummary(c: CheckoutView, detail: Detail, steps: NextStep[]) {
  const extras = c as CheckoutView & CheckoutExtras;
  const receipt = (c.receipt ?? null) as {
    receipt_id?: string;
    merchant_response?: { order_id?: string | null };
    continue_url?: string;
  } | null;
  const failure = (c.failure ?? null) as { code?: string; message?: string } | null;
  const continueUrl = extras.continue_url ?? receipt?.continue_url ?? null;
  const total = c.plan.amount ?? c.amount;
  const reason = failure ? merchantReasonOfCheckout(c) : null;
  const voided = paymentVoided(c);
  const why =
    c.status === 'failed'
      ? `The checkout failed${failure?.code ? ` (${failure.code})` : ''}: ${failure?.message ?? 'see full'}.${reason ? ` The merchant said: "${reason}".` : ''}${voided ? ' The payment authorization was voided: nothing is charged.' : ''} Tell the user. Next: `
      : c.status === 'expired'
        ? 'The plan expired before it was confirmed. Next: '
        : '';
  return withFull(
    {
      checkout_id: c.checkout_id,
      status: c.status,
      checkout_mode: extras.checkout_mode ?? null,
      proposal_id: c.proposal_id,
      merchant_id: c.merchant_id,
      line_items: c.plan.line_items.map((l) => ({
        title: l.title,
        quantity: l.quantity,
        amount: fromMinorUnits(l.amount_minor, c.currency),
      })),
      total,
      currency: c.currency,
      expires_at: c.expires_at,
      order_id: receipt?.merchant_response?.order_id ?? null,
      receipt_id: receipt?.receipt_id ?? null,
      continue_url: continueUrl,
      failure: failure
        ? { code: failure.code ?? 'unknown', message: failure.message ?? '', merchant_reason: reason, payment_voided: voided }
        : null,
      next_step: `${why}${steps.map((s) => `${s.description} (${s.how})`).join(' Or: ')}`,
      next_steps: steps.map((s) => ({ action: s.action, description: s.description, how: s.how })),
    },
    detail,
    { checkout: c },
  );
}

type RuntimeView = Awaited<ReturnType<typeof loadRuntime>>;

export function runtimeSummary(rt: RuntimeView, detail: Detail) {
  const s = rt.runtime_session;
  const token = rt.match_token;
  const finished = s.finished_at !== null;
  const next = !finished
    ? `Still running: call get_runtime with runtime_id ${s.runtime_id} in a few seconds.`
    : token && token.acceptance_state === 'accepted'
      ? `The best offer has match token ${token.match_token_id} (${token.amount} ${token.currency}): call plan_checkout with it, then ask the user to confirm.`
      : token && token.acceptance_state === 'payment_authorized'
        ? `Payment is authorized for match token ${token.match_token_id}: call plan_checkout with it to hand the order off.`
        : `The run ended at stage ${s.stage} without a match token: see steps (detail "full" for the reasons).`;
  return withFull(
    {
      runtime_id: s.runtime_id,
      status: finished ? ('finished' as const) : ('running' as const),
      stage: s.stage,
      audit_status: rt.runtime_trace.audit_status ?? null,
      intent_id: rt.intent?.intent_id ?? null,
      match_session_id: rt.match_session?.match_session_id ?? null,
      proposal: rt.proposal
        ? {
            proposal_id: rt.proposal.proposal_id,
            merchant_id: rt.proposal.merchant_agent_id,
            product_id: rt.proposal.product_id,
            title: rt.proposal.offer_title,
            price: rt.proposal.price,
            currency: rt.proposal.currency,
          }
        : null,
      match_token: token
        ? {
            match_token_id: token.match_token_id,
            proposal_id: token.proposal_id,
            acceptance_state: token.acceptance_state,
            amount: token.amount,
            currency: token.currency,
          }
        : null,
      steps: rt.agent_steps.map((st) => ({ index: st.index, kind: st.kind, agent_id: st.agent_id, status: st.status })),
      next_step: next,
    },
    detail,
    { runtime: rt },
  );
}
