import { describe, expect, it } from 'vitest';
import { boundedReason, MERCHANT_REASON_MAX, merchantReasonOf, reasonFromBody } from '../../src/checkout/merchant-reason';
import { nextSteps, type CheckoutState, type NextStep, type NextStepFacts } from '../../src/checkout/next-steps';

/**
 * The merchant's reason as the gateway passes it on (src/checkout/merchant-reason.ts) and the next
 * steps of a checkout (src/checkout/next-steps.ts), which REST, MCP and A2A all answer from.
 */

const json = (v: unknown) => Buffer.from(JSON.stringify(v));

describe("the merchant's reason", () => {
  it('is read from the members merchants put it in, or a plain-text body; never from HTML', () => {
    const type = { 'content-type': 'application/json' };
    expect(reasonFromBody(json({ message: 'Sorry, this item just sold out.' }), type)).toBe('Sorry, this item just sold out.');
    expect(reasonFromBody(json({ error: 'sold_out', detail: 'Sold out since noon.' }), type)).toBe('Sold out since noon.');
    expect(reasonFromBody(json({ error: { code: 'x', message: 'No stock.' } }), type)).toBe('No stock.');
    expect(reasonFromBody(json({ errors: [{ message: 'Address not served.' }] }), type)).toBe('Address not served.');
    expect(reasonFromBody(json({ messages: [{ type: 'error', content: 'Gone.' }] }), type)).toBe('Gone.');
    expect(reasonFromBody(json({ error: 'not today' }), type)).toBe('not today');
    expect(reasonFromBody(Buffer.from('We are closed.'), { 'content-type': 'text/plain; charset=utf-8' })).toBe('We are closed.');
    expect(reasonFromBody(Buffer.from('<html><body>422</body></html>'), { 'content-type': 'text/html' })).toBeNull();
    expect(reasonFromBody(Buffer.from('<!doctype html><p>x</p>'), {})).toBeNull();
    expect(reasonFromBody(Buffer.alloc(0), type)).toBeNull();
    expect(reasonFromBody(json({ ok: false }), type)).toBeNull();
    expect(reasonFromBody(Buffer.from('\u0000\u0001'), { 'content-type': 'application/octet-stream' })).toBeNull();
  });

  it(`is plain text: control and direction-override characters removed, blanks collapsed, at most ${MERCHANT_REASON_MAX} characters`, () => {
    expect(boundedReason('Sorry,\u0000 this\r\n item\t just \u202esold\u202c out.\u0007')).toBe('Sorry, this item just sold out.');
    const long = boundedReason(`${'é'.repeat(600)}`)!;
    expect(long).toHaveLength(MERCHANT_REASON_MAX);
    expect(long.endsWith('…')).toBe(true);
    // A cut never splits a surrogate pair.
    const emoji = boundedReason('😀'.repeat(400))!;
    expect(emoji.endsWith('…')).toBe(true);
    // No lone surrogate is left where the cut fell.
    expect(emoji).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    expect(boundedReason('  \u0000 ')).toBeNull();
    expect(boundedReason(undefined)).toBeNull();
  });

  it("is found in the audit trail: a webhook merchant's refused attempt, or a protocol merchant's refused completion", () => {
    const at = '2026-01-01T00:00:00.000Z';
    expect(
      merchantReasonOf([
        { step: 'merchant_handoff_attempt_1', at, outcome: 'failed', detail: { status_code: 503 } },
        { step: 'merchant_handoff_attempt_2', at, outcome: 'failed', detail: { status_code: 422, reason: 'Sold out.' } },
      ]),
    ).toBe('Sold out.');
    expect(
      merchantReasonOf([{ step: 'merchant_session_complete', at, outcome: 'refused', detail: { code: 'x', message: 'Card declined.' } }]),
    ).toBe('Card declined.');
    expect(merchantReasonOf([{ step: 'payment_voided', at, outcome: 'voided' }])).toBeNull();
  });
});

const future = new Date(Date.now() + 600_000);
const past = new Date(Date.now() - 1000);

function checkout(over: Partial<CheckoutState> = {}): CheckoutState {
  return {
    checkout_id: 'chk_1',
    status: 'failed',
    proposal_id: 'prop_1',
    match_token_id: 'mt_1',
    merchant_id: 'shoe-shop',
    amount: 93.89,
    currency: 'USD',
    expires_at: future.toISOString(),
    continue_url: null,
    payment_authorization_id: 'pauth_1',
    plan: { amount: 93.89, line_items: [{ title: 'Ember Trail' }] },
    merchant_session: null,
    receipt: null,
    audit_trail: [],
    failure: { code: 'merchant_handoff_failed', message: 'The merchant agent did not accept the handoff' },
    ...over,
  };
}

const refusedTrail = [
  { step: 'payment_voided', at: future.toISOString(), outcome: 'voided' },
  { step: 'failed', at: future.toISOString(), outcome: 'merchant_handoff_failed', detail: { merchant_refused: true } },
];
const facts = (over: Partial<NextStepFacts> = {}): NextStepFacts => ({
  token: { acceptance_state: 'accepted', expires_at: future, match_session_id: 'ms_1' },
  proposalUsable: true,
  sessionOpen: true,
  others: [],
  ...over,
});
const other = { proposal_id: 'prop_2', offer_title: 'Cinder Trail', merchant_id: 'other-shop', price: 99, currency: 'USD' };
const actions = (c: CheckoutState, f: NextStepFacts | null) => nextSteps(c, f, 'rest').map((s) => s.action);

describe('next steps, from the state as it is', () => {
  it('a merchant that refused the order: another proposal of the session when one can still be bought, else a new search', () => {
    const refused = checkout({ audit_trail: refusedTrail });
    expect(actions(refused, facts())).toEqual(['search_again']);
    const steps = nextSteps(refused, facts({ others: [other] }), 'rest');
    expect(steps.map((s) => s.action)).toEqual(['choose_another_proposal']);
    expect(steps[0]).toMatchObject({ match_session_id: 'ms_1', proposal_ids: ['prop_2'] });
    expect(steps[0]!.description).toContain('prop_2 (Cinder Trail, 99.00 USD, from other-shop)');
    // A session that expired offers nothing to choose from.
    expect(actions(refused, facts({ others: [other], sessionOpen: false }))).toEqual(['search_again']);
  });

  it('a merchant that did not answer: plan again with the token (the void put it back), or another proposal', () => {
    const down = checkout({ audit_trail: [{ ...refusedTrail[1]!, detail: { merchant_refused: false } }] });
    expect(actions(down, facts())).toEqual(['plan_new_checkout']);
    expect(actions(down, facts({ others: [other] }))).toEqual(['plan_new_checkout', 'choose_another_proposal']);
    // The token expired meanwhile: accept the proposal again.
    const expiredToken = facts({ token: { acceptance_state: 'accepted', expires_at: past, match_session_id: 'ms_1' } });
    expect(nextSteps(down, expiredToken, 'rest')[0]).toMatchObject({ action: 'accept_match_again', proposal_id: 'prop_1' });
    // Token and session gone: search again.
    expect(actions(down, { ...expiredToken, sessionOpen: false })).toEqual(['search_again']);
  });

  it('a declined payment or a changed price is tried again with the same proposal; an unusable proposal is not', () => {
    const declined = checkout({ failure: { code: 'payment_declined', message: 'x' }, audit_trail: refusedTrail });
    const [step] = nextSteps(declined, facts(), 'rest');
    expect(step).toMatchObject({ action: 'plan_new_checkout' });
    expect(step!.description).toContain('another payment credential');
    expect(actions(checkout({ failure: { code: 'inventory_unavailable', message: 'x' } }), facts())).toEqual(['search_again']);
    expect(actions(checkout(), facts({ proposalUsable: false, others: [other] }))).toEqual(['choose_another_proposal']);
  });

  it('checkouts stored before the refusal was recorded read it from their stored next action', () => {
    const old = checkout({
      failure: { code: 'merchant_handoff_failed', message: 'x', next_action: { action: 'choose_another_proposal' } },
    });
    expect(actions(old, facts())).toEqual(['search_again']);
  });

  it('the other states need no record but the checkout', () => {
    expect(actions(checkout({ status: 'awaiting_confirmation', failure: null }), null)).toEqual(['confirm_checkout']);
    expect(actions(checkout({ status: 'confirming', failure: null }), null)).toEqual(['poll_checkout']);
    const confirmed = nextSteps(
      checkout({ status: 'confirmed', failure: null, receipt: { merchant_response: { order_id: 'ord-7' } } }),
      null,
      'mcp',
    );
    expect(confirmed[0]).toMatchObject({ action: 'follow_order', how: 'get_checkout with checkout_id chk_1' });
    expect(confirmed[0]!.description).toContain('ord-7');
    expect(nextSteps(checkout({ status: 'handed_off', failure: null, continue_url: 'https://x/r/1' }), null, 'a2a')[0]).toMatchObject({
      action: 'continue_on_merchant_page',
      continue_url: 'https://x/r/1',
    });
  });

  it('REST, MCP and A2A say the same steps in the same words; only the calls differ', () => {
    const c = checkout({ audit_trail: [{ ...refusedTrail[1]!, detail: { merchant_refused: false } }] });
    const f = facts({ others: [other] });
    const [rest, mcp, a2a] = [nextSteps(c, f, 'rest'), nextSteps(c, f, 'mcp'), nextSteps(c, f, 'a2a')];
    const said = (steps: NextStep[]) => steps.map(({ how: _how, ...step }) => step);
    expect(said(mcp)).toEqual(said(rest));
    expect(said(a2a)).toEqual(said(rest));
    expect(rest.map((s) => s.how)).toEqual([
      'POST /v1/agentic-checkout with match_token_id mt_1, its intent_id, proposal_id, amount and currency',
      'POST /v1/match/ms_1/accept with the chosen proposal_id, then POST /v1/agentic-checkout with the new token',
    ]);
    expect(mcp.map((s) => s.how)).toEqual([
      'plan_checkout with match_token_id mt_1',
      'accept_match with match_session_id ms_1 and the chosen proposal_id, then plan_checkout with the new token',
    ]);
    expect(a2a[0]!.how).toContain('agentic_checkout');
  });
});
