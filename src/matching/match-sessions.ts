import { fromMinorUnitsOrNull } from '../money';
import type { Selectable } from 'kysely';
import type { Db } from '../db/connect';
import type { MatchSessionsTable } from '../db/schema-matching';
import { AppError } from '../errors';
import { newId } from '../ids';
import type { CardFactsCache } from '../catalog/cards';
import { issuedCardRows, matchRecId } from '../recommend/issued-cards';
import { buildProductCards } from '../catalog/cards';
import { RENDER_LIMIT_MAX } from '../schemas/match';
import { getOwnIntent, type IntentRow } from './intents';
import type { Caller } from '../tenancy';
import { expireDueProposals } from './proposals';
import { rankProposals, RANKING_COLUMNS, RANKING_WEIGHTS, type RankableProposal } from './ranking';
import type { RankedProposal } from '../schemas/match';
import { iso } from '../time';

export type MatchSessionRow = Selectable<MatchSessionsTable>;

export const matchNotFound = (id: string) => new AppError(404, 'match_not_found', `No match session '${id}'.`);

/** Proposals a match can rank: live quotes (drafts are not offers yet; accepted/settled are taken). */
const RANKABLE_STATES = new Set(['quoted', 'pending_confirmation']);

export function matchSessionView(s: Omit<MatchSessionRow, 'ranked_top'>) {
  return {
    match_session_id: s.match_session_id,
    intent_id: s.intent_id,
    best_proposal_id: s.best_proposal_id,
    ranked_proposals: s.ranked_proposals,
    summary: s.summary,
    status: s.status,
    created_at: iso(s.created_at),
    updated_at: iso(s.updated_at),
    expires_at: iso(s.expires_at),
  };
}

function explain(ranked: RankedProposal[], excluded: number): string {
  if (ranked.length === 0) return `No proposal could be ranked${excluded ? ` (${excluded} excluded)` : ''}.`;
  const best = ranked[0]!;
  const strongest = Object.entries(best.breakdown)
    .sort((a, b) => b[1].contribution - a[1].contribution)
    .slice(0, 2)
    .map(([k, v]) => `${k} (${v.reason})`);
  return `Ranked ${ranked.length} proposal(s); best is ${best.proposal_id} at ${best.price} ${best.currency} with score ${best.score}, led by ${strongest.join(' and ')}.`;
}

export async function createMatchSession(
  db: Db,
  input: { intent_id: string; proposal_ids?: string[] },
  opts: {
    ttlSeconds: number;
    caller: Caller;
    publicBaseUrl: string;
    cardFacts?: CardFactsCache;
    sessionId?: string;
    /** Told the candidates as read (their trust scores among them), so a caller need not read them again. */
    onCandidates?: (candidates: RankableProposal[]) => void;
  },
): Promise<MatchSessionRow> {
  // Only the intent's developer may rank it; the session belongs to the same developer.
  const intent = await getOwnIntent(db, input.intent_id, opts.caller);
  const sessionId = opts.sessionId ?? newId('ms');
  // A keyed retry after a crash: the session the first run stored (one transaction: all of it or
  // nothing). A session id made just now cannot be stored yet.
  if (opts.sessionId) {
    const stored = await db
      .selectFrom('match_sessions')
      .selectAll()
      .where('match_session_id', '=', sessionId)
      .where('intent_id', '=', intent.intent_id)
      .executeTakeFirst();
    if (stored) return stored;
  }
  await expireDueProposals(db, { intentId: intent.intent_id });
  let candidates: RankableProposal[];
  if (input.proposal_ids) {
    const ids = [...new Set(input.proposal_ids)];
    candidates = await db
      .selectFrom('proposals')
      .select(RANKING_COLUMNS)
      .where('proposal_id', 'in', ids)
      .where('intent_id', '=', intent.intent_id)
      .execute();
    const missing = ids.filter((id) => !candidates.some((p) => p.proposal_id === id));
    if (missing.length) {
      throw new AppError(404, 'proposal_not_found', `No proposal ${missing.join(', ')} for intent ${intent.intent_id}.`, {
        proposal_ids: missing,
      });
    }
  } else {
    candidates = await db
      .selectFrom('proposals')
      .select(RANKING_COLUMNS)
      .where('intent_id', '=', intent.intent_id)
      .where('status', '=', 'active')
      .execute();
  }
  opts.onCandidates?.(candidates);
  const now = new Date();
  const ranking = rankSession(intent, candidates, now);
  // The cards of the top proposals are issued once, with the session: every render shows the same
  // documents under the same rec ids, and GET /v1/cards and the click redirect can find them. The
  // session and its cards are one statement (all of it or nothing, as a keyed retry expects).
  const cards = await buildProductCards(db, [...new Set(ranking.top.map((p) => p.product_id))], {
    publicBaseUrl: opts.publicBaseUrl,
    channel: 'match',
    recIdFor: matchRecId(sessionId),
    cache: opts.cardFacts,
  });
  const s = {
    sessionId,
    intentId: intent.intent_id,
    ranking,
    now,
    ttlSeconds: opts.ttlSeconds,
    developerId: intent.developer_id ?? undefined,
  };
  // Every column is given, so the row as stored is the row built; reading it back would only re-parse the ranking.
  const row = newMatchSessionRow(s);
  const values = {
    ...row,
    ranked_proposals: JSON.stringify(row.ranked_proposals),
    ranked_top: row.ranked_top && JSON.stringify(row.ranked_top),
    summary: JSON.stringify(row.summary),
  };
  if (!cards.length) await db.insertInto('match_sessions').values(values).execute();
  else
    await db
      .with('cards', (q) =>
        q
          .insertInto('rec_cards')
          .values(issuedCardRows(cards, { source: 'match', matchSessionId: sessionId }))
          .onConflict((oc) => oc.column('rec_id').doNothing()),
      )
      .insertInto('match_sessions')
      .values(values)
      .execute();
  return row;
}

export interface SessionRanking {
  ranked: RankedProposal[];
  /** The cut a render can show (RENDER_LIMIT_MAX). */
  top: RankedProposal[];
  summary: Record<string, unknown> & { best_proposal_id: string | null };
}

/**
 * How a session orders its ranked proposals. `score`: by the match score (POST /v1/match). `recommendation`:
 * in the order given (GET /v1/recommend's item order), the score kept beside each for comparison. A
 * recommendation's offers are all the catalog's own, so the score's offer signals (price, stock, trust)
 * barely differ while it cannot see how well each product fits the shopper's words: ranked by score, the
 * cheapest item, even a trending fill that matches nothing, would beat the best match. So a
 * recommendation's own order is the one ranking of its session: items[0], the shopper guide's top pick,
 * best_proposal_id and accept's default are the same proposal.
 */
export type SessionOrder = { by: 'score' } | { by: 'recommendation'; proposalIds: string[] };

/** Ranks an intent's candidate proposals and explains the result; proposals that are not live quotes are listed as excluded. */
export function rankSession(
  intent: Pick<IntentRow, 'budget_min_cents' | 'budget_max_cents' | 'budget_currency' | 'time_window'>,
  candidates: RankableProposal[],
  now: Date,
  order: SessionOrder = { by: 'score' },
): SessionRanking {
  const rankable = candidates.filter((p) => p.status === 'active' && RANKABLE_STATES.has(p.proposal_state));
  const excluded = candidates
    .filter((p) => !rankable.includes(p))
    .map((p) => ({ proposal_id: p.proposal_id, reason: `proposal_state ${p.proposal_state}` }));
  const deadline = (intent.time_window as { deadline?: string } | null)?.deadline;
  const scored = rankProposals(rankable, {
    budgetMaxCents: intent.budget_max_cents,
    budgetMinCents: intent.budget_min_cents,
    budgetCurrency: intent.budget_currency,
    deadline: deadline ? new Date(deadline) : null,
    now,
  });
  const ranked = order.by === 'recommendation' ? inGivenOrder(scored, order.proposalIds) : scored;
  const summary = {
    candidates: candidates.length,
    ranked: ranked.length,
    excluded,
    best_proposal_id: ranked[0]?.proposal_id ?? null,
    best_score: ranked[0]?.score ?? null,
    weights: RANKING_WEIGHTS,
    budget:
      intent.budget_max_cents !== null || intent.budget_min_cents !== null
        ? {
            min: fromMinorUnitsOrNull(intent.budget_min_cents, intent.budget_currency ?? 'USD'),
            max: fromMinorUnitsOrNull(intent.budget_max_cents, intent.budget_currency ?? 'USD'),
            currency: intent.budget_currency,
          }
        : null,
    deadline: deadline ?? null,
    ordered_by: order.by,
    explanation:
      order.by === 'recommendation' && ranked.length
        ? `Ordered as the recommendation ranked them (fit to the shopper's words first); best is ${ranked[0]!.proposal_id} at ${ranked[0]!.price} ${ranked[0]!.currency}. Match scores are shown for comparison.`
        : explain(ranked, excluded.length),
  };
  return { ranked, top: ranked.slice(0, RENDER_LIMIT_MAX), summary };
}

/** The scored proposals in the given order (ids not given keep their score order, after), ranks renumbered. */
function inGivenOrder(scored: RankedProposal[], ids: string[]): RankedProposal[] {
  const position = new Map(ids.map((id, i) => [id, i]));
  const at = (p: RankedProposal) => position.get(p.proposal_id) ?? ids.length + p.rank;
  return [...scored].sort((a, b) => at(a) - at(b)).map((p, i) => ({ ...p, rank: i + 1 }));
}

export interface NewMatchSession {
  sessionId: string;
  intentId: string;
  ranking: SessionRanking;
  now: Date;
  ttlSeconds: number;
  developerId?: string;
}

/** The stored row of a new session, JSON members as values (its top's cards are issued into rec_cards beside it). */
export function newMatchSessionRow(s: NewMatchSession): MatchSessionRow {
  return {
    match_session_id: s.sessionId,
    intent_id: s.intentId,
    best_proposal_id: s.ranking.summary.best_proposal_id,
    ranked_proposals: s.ranking.ranked,
    // A second copy only when the ranking is longer than what a render shows.
    ranked_top: s.ranking.ranked.length > s.ranking.top.length ? s.ranking.top : null,
    summary: s.ranking.summary,
    status: 'open',
    expires_at: new Date(s.now.getTime() + s.ttlSeconds * 1000),
    developer_id: s.developerId ?? null,
    created_at: s.now,
    updated_at: s.now,
  };
}
