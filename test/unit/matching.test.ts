import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { assertTransition, canTransition, PROPOSAL_STATES } from '../../src/matching/proposal-state';
import { keywordTags, MAX_TEXT_BUDGET_USD, normalizeQuery, parseBudget, parseRegion } from '../../src/matching/intent-text';
import { priceSanity } from '../../src/matching/trust-score';
import type { ProposalState } from '../../src/db/schema-matching';

describe('proposal state machine (docs/CONTRACT.md#states)', () => {
  const legal: Array<[ProposalState, ProposalState]> = [
    ['draft', 'quoted'],
    ['draft', 'expired'],
    ['quoted', 'pending_confirmation'],
    ['quoted', 'expired'],
    ['pending_confirmation', 'accepted'],
    ['pending_confirmation', 'expired'],
    ['accepted', 'pending_confirmation'],
    ['accepted', 'settled'],
    ['accepted', 'expired'],
  ];
  const isLegal = (from: ProposalState, to: ProposalState) => legal.some(([f, t]) => f === from && t === to);

  it.each(PROPOSAL_STATES.flatMap((from) => PROPOSAL_STATES.map((to) => [from, to] as const)))('%s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(isLegal(from, to));
    if (isLegal(from, to)) {
      expect(() => assertTransition('prop_x', from, to)).not.toThrow();
    } else {
      let err: unknown;
      try {
        assertTransition('prop_x', from, to);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ status: 409, code: 'illegal_proposal_transition' });
    }
  });
});

describe('reading intents from text', () => {
  it.each([
    ['running shoes under $50', { max: 50 }],
    ['headphones below 80 dollars', { max: 80 }],
    ['a desk lamp for less than $35.50', { max: 35.5 }],
    ['tent between $100 and $250', { min: 100, max: 250 }],
    ['a backpack $40-$60', { min: 40, max: 60 }],
    ['a watch over $300', { min: 300 }],
    ['a gift around $50', { min: 40, max: 60 }],
  ])('%s', (text, expected) => {
    expect(parseBudget(text)).toMatchObject(expected);
  });

  it('does not read sizes or pack counts as budgets', () => {
    expect(parseBudget('size 10 running shoes 2-pack')).toBeNull();
    expect(parseBudget('socks 3-6 pairs')).toBeNull();
  });

  it('caps a budget read from text at MAX_TEXT_BUDGET_USD, so no sentence reaches an integer column unbounded', () => {
    expect(parseBudget('shoes under $3000000000')).toMatchObject({ max: MAX_TEXT_BUDGET_USD });
    expect(parseBudget('between $5 and $99999999999999999999')).toMatchObject({ min: 5, max: MAX_TEXT_BUDGET_USD });
    expect(parseBudget('around $9000000000')).toMatchObject({ min: MAX_TEXT_BUDGET_USD, max: MAX_TEXT_BUDGET_USD });
    expect(Math.round(MAX_TEXT_BUDGET_USD * 100)).toBeLessThan(2 ** 31);
  });

  it('regions by name or code after a place word', () => {
    expect(parseRegion('shipped to canada')).toMatchObject({ code: 'CA' });
    expect(parseRegion('for someone in the UK')).toMatchObject({ code: 'GB' });
    expect(parseRegion('available in the united states')).toMatchObject({ code: 'US' });
    expect(parseRegion('something for my dad')).toBeNull();
    expect(parseRegion('a board game for us to play')).toBeNull();
    expect(parseRegion('ships in the US')).toMatchObject({ code: 'US', phrase: 'in the US' });
  });

  it('normalizes and extracts keyword tags without budget words or stopwords', () => {
    const n = normalizeQuery('  Best  TRAIL-running Shoes, under $120!! ');
    expect(n).toBe('best trail-running shoes under $120');
    expect(keywordTags(n, 'under $120')).toEqual(['trail-running', 'shoes']);
  });
});

describe('price sanity against the catalog', () => {
  it.each([
    [1, 1],
    [0.6, 1],
    [1.1, 1],
    [1.55, 0.5],
    [2, 0],
    [3, 0],
    [0.3, 0.3],
  ])('ratio %s → %s', (ratio, value) => {
    expect(priceSanity(ratio).value).toBeCloseTo(value, 2);
  });
});
