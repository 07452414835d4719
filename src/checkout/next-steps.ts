import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { AuditEntry } from '../db/schema-checkout';
import { AppError } from '../errors';
import { merchantReasonOf } from './merchant-reason';
import { checkoutFailureStatus } from './failures';

/**
 * What the buyer's agent can do next with a checkout, computed from its state as it is now (the
 * checkout, its match token, its proposal and the other proposals its match session ranked): the one
 * source of next steps for the REST answers, the MCP tools and the A2A tasks (docs/CHECKOUT.md, "Next
 * steps"). Each step has the same `description` on every surface; `how` names the calls of the
 * surface that asked (REST paths, MCP tools, A2A skills), so the three say the same thing.
 */

export type Surface = 'rest' | 'mcp' | 'a2a';

export type NextStepAction =
  | 'confirm_checkout'
  | 'poll_checkout'
  | 'follow_order'
  | 'continue_on_merchant_page'
  | 'plan_new_checkout'
  | 'accept_match_again'
  | 'choose_another_proposal'
  | 'search_again';

export interface NextStep {
  action: NextStepAction;
  /** What to do, in the same words on every surface. */
  description: string;
  /** The calls that do it on the surface that asked. */
  how: string;
  match_token_id?: string;
  /** plan_new_checkout: the token can be used until then. */
  until?: string;
  match_session_id?: string;
  /** accept_match_again: the proposal to accept again. */
  proposal_id?: string;
  /** choose_another_proposal: the session's other proposals that can still be bought, best ranked first. */
  proposal_ids?: string[];
  continue_url?: string;
}

/** The members of a checkout the steps are computed from (CheckoutView satisfies it). */
export interface CheckoutState {
  checkout_id: string;
  status: string;
  proposal_id: string;
  match_token_id: string;
  merchant_id: string;
  amount: number;
  currency: string;
  expires_at: string;
  continue_url?: string | null;
  payment_authorization_id: string | null;
  plan: { amount?: number; line_items: Array<{ title: string }> };
  merchant_session?: { payment_handlers: Array<{ id: string }> } | null;
  receipt?: unknown;
  audit_trail: AuditEntry[];
  failure?: { code?: string; message?: string; next_action?: { action?: string } } | null;
}

/** An other proposal of the session that can still be accepted and bought. */
export interface OtherProposal {
  proposal_id: string;
  offer_title: string;
  merchant_id: string;
  price: number;
  currency: string;
}

/** What the steps of a failed or expired checkout depend on besides the checkout. */
export interface NextStepFacts {
  token: { acceptance_state: string; expires_at: Date; match_session_id: string | null } | null;
  /** The checkout's proposal can still be bought (active, pending or accepted, unexpired, in stock). */
  proposalUsable: boolean;
  /** The match session can still be accepted from (not expired). */
  sessionOpen: boolean;
  others: OtherProposal[];
}

/** Failures the buyer's agent can fix and try again with the same proposal (what to fix, in words). */
const FIXABLE: Record<string, string> = {
  payment_declined: ' and another payment credential',
  payment_credential_required: ' and a payment credential for one of the merchant’s payment handlers',
  price_changed: ' (the new plan takes the merchant’s current total)',
  buyer_details_missing: ' and the buyer details the merchant needs',
  merchant_handoff_failed: ' (the merchant agent did not answer; it may have recovered)',
  merchant_unavailable: ' (the merchant did not answer; it may have recovered)',
};
/** Failures that say this proposal cannot be bought from its merchant, whatever is tried. */
const REFUSED = new Set(['merchant_refused', 'inventory_unavailable']);

/** The merchant refused this order (recorded on the `failed` audit entry; older checkouts: their stored next action). */
export function merchantRefused(c: Pick<CheckoutState, 'audit_trail' | 'failure'>): boolean {
  const code = c.failure?.code ?? '';
  if (REFUSED.has(code)) return true;
  const failed = [...c.audit_trail].reverse().find((e) => e.step === 'failed');
  const recorded = failed?.detail?.merchant_refused;
  if (typeof recorded === 'boolean') return recorded && !(code in FIXABLE && code !== 'merchant_handoff_failed');
  return c.failure?.next_action?.action === 'choose_another_proposal';
}

/** A payment authorization of the checkout was voided (the audit trail's `payment_voided`). */
export const paymentVoided = (c: Pick<CheckoutState, 'audit_trail'>) => c.audit_trail.some((e) => e.step === 'payment_voided');

const money = (amount: number, currency: string) => `${amount.toFixed(2)} ${currency}`;

/** The surface's calls for each step. */
const HOW: Record<Surface, Record<NextStepAction, (c: CheckoutState, s: NextStep) => string>> = {
  rest: {
    confirm_checkout: (c) =>
      `POST /v1/agentic-checkout/${c.checkout_id}/confirm with consent {granted: true, statement}, match_token (its signed_token), proposal_id, amount and currency${c.merchant_session ? ', and payment_credential {handler, token}' : ''}`,
    poll_checkout: (c) => `GET /v1/agentic-checkout/${c.checkout_id}`,
    follow_order: (c) => `GET /v1/agentic-checkout/${c.checkout_id}`,
    continue_on_merchant_page: () => 'continue_url',
    plan_new_checkout: (_c, s) =>
      `POST /v1/agentic-checkout with match_token_id ${s.match_token_id}, its intent_id, proposal_id, amount and currency`,
    accept_match_again: (_c, s) =>
      `POST /v1/match/${s.match_session_id}/accept with proposal_id ${s.proposal_id}, then POST /v1/agentic-checkout with the new token`,
    choose_another_proposal: (_c, s) =>
      `POST /v1/match/${s.match_session_id}/accept with the chosen proposal_id, then POST /v1/agentic-checkout with the new token`,
    search_again: () => 'GET /v1/recommend?intent=<what the buyer wants>, or POST /v1/intents then POST /v1/match',
  },
  mcp: {
    confirm_checkout: (c) =>
      `confirm_checkout with checkout_id ${c.checkout_id}, consent_granted true, consent_statement (what the user agreed to), amount and currency${c.merchant_session ? ', and payment_handler with payment_token' : ''}`,
    poll_checkout: (c) => `get_checkout with checkout_id ${c.checkout_id}`,
    follow_order: (c) => `get_checkout with checkout_id ${c.checkout_id}`,
    continue_on_merchant_page: () => 'continue_url',
    plan_new_checkout: (_c, s) => `plan_checkout with match_token_id ${s.match_token_id}`,
    accept_match_again: (_c, s) =>
      `accept_match with match_session_id ${s.match_session_id} and proposal_id ${s.proposal_id}, then plan_checkout with the new token`,
    choose_another_proposal: (_c, s) =>
      `accept_match with match_session_id ${s.match_session_id} and the chosen proposal_id, then plan_checkout with the new token`,
    search_again: () => 'recommend with what the user wants, or create_intent then create_match',
  },
  a2a: {
    confirm_checkout: (c) =>
      `reply on the task with the buyer's explicit consent, or the agentic_checkout skill {"action": "confirm", "checkout_id": "${c.checkout_id}", consent, match_token, proposal_id, amount, currency${c.merchant_session ? ', payment_credential' : ''}}`,
    poll_checkout: (c) => `GetTask, or the agentic_checkout skill {"action": "get", "checkout_id": "${c.checkout_id}"}`,
    follow_order: (c) => `the agentic_checkout skill {"action": "get", "checkout_id": "${c.checkout_id}"}`,
    continue_on_merchant_page: () => 'continue_url',
    plan_new_checkout: (_c, s) => `the agentic_checkout skill {"action": "plan", "match_token_id": "${s.match_token_id}", …}`,
    accept_match_again: (_c, s) =>
      `the intent_matching skill {"action": "accept_match", "match_session_id": "${s.match_session_id}", "proposal_id": "${s.proposal_id}"}, then agentic_checkout {"action": "plan"} with the new token`,
    choose_another_proposal: (_c, s) =>
      `the intent_matching skill {"action": "accept_match", "match_session_id": "${s.match_session_id}", "proposal_id": <the chosen one>}, then agentic_checkout {"action": "plan"} with the new token`,
    search_again: () => 'send a new message saying what the buyer wants (or the recommend skill)',
  },
};

/** Steps that need no other record than the checkout (every status but failed and expired). */
function stepsOfStatus(c: CheckoutState): Array<Omit<NextStep, 'how'>> | null {
  const total = c.plan.amount ?? c.amount;
  switch (c.status) {
    case 'awaiting_confirmation': {
      const handlers = c.merchant_session?.payment_handlers.map((h) => h.id).join(', ');
      return [
        {
          action: 'confirm_checkout',
          description:
            `Show the buyer the plan (${c.plan.line_items.map((l) => l.title).join(', ')}, total ${money(total, c.currency)}) and ask for explicit consent; ` +
            `only after a yes, confirm it with amount ${total} and currency ${c.currency}` +
            `${c.merchant_session ? ` and a payment credential for one of the merchant's payment handlers (${handlers || 'none listed'}) unless the gateway is configured with one` : ''}, before ${c.expires_at}.`,
        },
      ];
    }
    case 'confirming':
      return [
        {
          action: 'poll_checkout',
          description: `The confirm is under way (payment, then the order handed to ${c.merchant_id}); read the checkout again in a few seconds.`,
        },
      ];
    case 'confirmed': {
      const orderId = (c.receipt as { merchant_response?: { order_id?: string | null } } | null)?.merchant_response?.order_id;
      return [
        {
          action: 'follow_order',
          description: `Done: ${c.merchant_id} has the order${orderId ? ` ${orderId}` : ''}. Tell the buyer; the checkout shows the order's status as the merchant reports it.`,
        },
      ];
    }
    case 'handed_off': {
      const url = c.continue_url ?? (c.receipt as { continue_url?: string } | null)?.continue_url ?? '';
      return [
        {
          action: 'continue_on_merchant_page',
          description: `Give the buyer continue_url verbatim (${url}): they finish the purchase on ${c.merchant_id}'s page.`,
          continue_url: url,
        },
      ];
    }
    default:
      return null;
  }
}

/** A failed or expired checkout: try again, another proposal, or a new search, as the records allow. */
function stepsAfterFailure(c: CheckoutState, f: NextStepFacts, now: Date): Array<Omit<NextStep, 'how'>> {
  const steps: Array<Omit<NextStep, 'how'>> = [];
  const code = c.status === 'expired' ? 'checkout_expired' : (c.failure?.code ?? '');
  const refused = c.status === 'failed' && merchantRefused(c);
  const session = f.token?.match_session_id ?? null;
  if (!refused && f.proposalUsable && f.token) {
    const usable =
      f.token.acceptance_state === 'payment_authorized' || (f.token.acceptance_state === 'accepted' && f.token.expires_at > now);
    if (usable) {
      const until = f.token.expires_at.toISOString();
      steps.push({
        action: 'plan_new_checkout',
        description: `Match token ${c.match_token_id} can still be used (until ${until}): plan a new checkout of the same proposal with it${FIXABLE[code] ?? ''}.`,
        match_token_id: c.match_token_id,
        until,
      });
    } else if (session && f.sessionOpen) {
      steps.push({
        action: 'accept_match_again',
        description: `Match token ${c.match_token_id} can no longer be used (${f.token.acceptance_state === 'accepted' ? 'expired' : f.token.acceptance_state}): accept proposal ${c.proposal_id} of match session ${session} again for a new token, and plan a new checkout with it.`,
        match_token_id: c.match_token_id,
        match_session_id: session,
        proposal_id: c.proposal_id,
      });
    }
  }
  if (session && f.sessionOpen && f.others.length) {
    const shown = f.others
      .slice(0, 3)
      .map((o) => `${o.proposal_id} (${o.offer_title}, ${money(o.price, o.currency)}, from ${o.merchant_id})`);
    const more = f.others.length > shown.length ? ` and ${f.others.length - shown.length} more` : '';
    const lead = refused
      ? `${c.merchant_id} refused this order`
      : f.proposalUsable
        ? 'Or buy something else'
        : 'This proposal can no longer be bought';
    steps.push({
      action: 'choose_another_proposal',
      description: `${lead}: match session ${session} ranked ${f.others.length} other proposal${f.others.length === 1 ? '' : 's'} that can still be bought: ${shown.join('; ')}${more}. Choose one, accept it for a new match token and plan a checkout for it.`,
      match_session_id: session,
      proposal_ids: f.others.map((o) => o.proposal_id),
    });
  }
  if (!steps.length) {
    const why = refused
      ? `${c.merchant_id} refused this order and`
      : !f.proposalUsable
        ? 'This proposal can no longer be bought and'
        : 'The match token and its session have expired, and';
    steps.push({
      action: 'search_again',
      description: `${why} ${session ? `match session ${session} has no other proposal that can still be bought` : 'there is no match session to choose from'}: search again for what the buyer wants.`,
    });
  }
  return steps;
}

/** The steps, worded for `surface`; `facts` are needed for a failed or expired checkout only. */
export function nextSteps(c: CheckoutState, facts: NextStepFacts | null, surface: Surface, now = new Date()): NextStep[] {
  const base =
    stepsOfStatus(c) ??
    (facts
      ? stepsAfterFailure(c, facts, now)
      : [{ action: 'poll_checkout' as const, description: `The checkout is ${c.status}; read it again.` }]);
  return base.map((s) => {
    const step = { ...s, how: '' } as NextStep;
    step.how = HOW[surface][s.action](c, step);
    return step;
  });
}

/** Whether the steps of this checkout need its token, proposal and session read (failed or expired). */
export const needsFacts = (c: Pick<CheckoutState, 'status'>) => c.status === 'failed' || c.status === 'expired';

/**
 * The token, proposal and session facts of a checkout, in one statement; `db` may be a transaction
 * (the failure's, which stores the first next action with the failure).
 */
export async function nextStepFacts(
  db: Kysely<Database>,
  c: Pick<CheckoutState, 'match_token_id' | 'proposal_id'>,
): Promise<NextStepFacts> {
  // A proposal that can be bought: active, unexpired, in stock, and in a state its next step can take
  // (the checkout's own: one a token names, as a plan needs; another: any an accept can still take).
  const usable = (p: string, states: string[]) =>
    sql<boolean>`(${sql.ref(`${p}.status`)} = 'active' and ${sql.ref(`${p}.proposal_state`)} in (${sql.join(states)})
      and (${sql.ref(`${p}.valid_until`)} is null or ${sql.ref(`${p}.valid_until`)} > now())
      and ${sql.ref(`${p}.inventory_status`)} <> 'out_of_stock')`;
  const row = await db
    .selectFrom(sql<{ one: number }>`(select 1)`.as('x'))
    .leftJoin('match_tokens as t', (j) => j.on('t.match_token_id', '=', c.match_token_id))
    .leftJoin('proposals as p', (j) => j.on('p.proposal_id', '=', c.proposal_id))
    .leftJoin('match_sessions as s', 's.match_session_id', 't.match_session_id')
    .select([
      't.acceptance_state',
      't.expires_at as token_expires_at',
      't.match_session_id',
      sql<boolean>`coalesce(${usable('p', ['pending_confirmation', 'accepted'])}, false)`.as('proposal_usable'),
      sql<boolean>`coalesce(s.status <> 'expired' and s.expires_at > now(), false)`.as('session_open'),
      sql<OtherProposal[]>`coalesce((
        select jsonb_agg(jsonb_build_object('proposal_id', o.proposal_id, 'offer_title', o.offer_title,
          'merchant_id', o.merchant_agent_id, 'price', r.e->'price', 'currency', o.currency) order by r.i)
        from jsonb_array_elements(s.ranked_proposals) with ordinality as r(e, i)
        join proposals o on o.proposal_id = r.e->>'proposal_id'
        where o.proposal_id <> ${c.proposal_id} and ${usable('o', ['draft', 'quoted', 'pending_confirmation'])}), '[]'::jsonb)`.as(
        'others',
      ),
    ])
    .executeTakeFirstOrThrow();
  return {
    token: row.acceptance_state
      ? { acceptance_state: row.acceptance_state, expires_at: row.token_expires_at!, match_session_id: row.match_session_id ?? null }
      : null,
    proposalUsable: row.proposal_usable,
    sessionOpen: row.session_open,
    others: row.others.map((o) => ({ ...o, price: Number(o.price) })),
  };
}

/** The steps of a checkout as it is now (reads the token, proposal and session only for a failed or expired one). */
export async function checkoutNextSteps(db: Kysely<Database>, c: CheckoutState, surface: Surface): Promise<NextStep[]> {
  return nextSteps(c, needsFacts(c) ? await nextStepFacts(db, c) : null, surface);
}

/**
 * What a failed checkout's error answer carries besides `{error, message}` (docs/CHECKOUT.md): the
 * checkout, the merchant's own reason, whether the payment authorization was voided, and the next
 * steps as of now (`next_action`: the first, for clients of the single next action).
 */
export async function failureDetails(db: Kysely<Database>, c: CheckoutState, surface: Surface) {
  const steps = await checkoutNextSteps(db, c, surface);
  const stored = c.failure as { merchant_reason?: string | null } | null | undefined;
  return {
    checkout_id: c.checkout_id,
    merchant_reason: stored?.merchant_reason ?? merchantReasonOf(c.audit_trail),
    payment_authorization_id: c.payment_authorization_id,
    payment_voided: paymentVoided(c),
    next_action: steps[0],
    next_steps: steps,
  };
}

/** A failed checkout as the error its confirm answers: the failure's own code and status (src/checkout/failures.ts). */
export async function checkoutFailedError(db: Kysely<Database>, c: CheckoutState, surface: Surface): Promise<AppError> {
  const code = c.failure?.code ?? 'checkout_failed';
  return new AppError(
    checkoutFailureStatus(code),
    code,
    c.failure?.message ?? 'The checkout failed.',
    await failureDetails(db, c, surface),
  );
}
