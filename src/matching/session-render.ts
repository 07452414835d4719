import { sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { Db } from '../db/connect';
import { matchNotFound, matchSessionView, type MatchSessionRow } from './match-sessions';
import { matchTokenView, selectTokens, type MatchTokenRow } from './match-tokens';
import type { RankedProposal } from './ranking';
import type { ProductCardDocumentT } from '../schemas/catalog';

export interface RenderedSession {
  session: Omit<MatchSessionRow, 'ranked_top' | 'top_cards'>;
  /** The first `top` ranked proposals (session.ranked_proposals holds the same cut). */
  top: RankedProposal[];
  tokens: MatchTokenRow[];
  /** The cards issued with the session for those proposals' products, in rank order. */
  cards: ProductCardDocumentT[];
}

/** What a session fixes at creation and never changes: its ranking's top and the cards issued for it. */
interface FrozenTop {
  rankedTop: RankedProposal[];
  topCards: ProductCardDocumentT[];
}

/**
 * Frozen tops by session id, per process. Caching them is always correct (they never change) and
 * spares every render reading and parsing ten ranked proposals and ten cards; status and tokens,
 * which do change, are read on every render.
 */
export class FrozenTopCache {
  private readonly lru = new LRUCache<string, FrozenTop>({ max: 2000 });
  get(id: string) {
    return this.lru.get(id);
  }
  set(id: string, top: FrozenTop) {
    this.lru.set(id, top);
  }
}

/** json_agg hands timestamps back as text. */
const toDate = (v: unknown) => (v == null ? null : new Date(v as string));

/**
 * A session as GET /v1/match/{id} shows it, in one statement: the stored top of the ranking (never
 * the full one, which may hold hundreds of entries), the cards issued for it, and the session's
 * tokens, cut to `top`. A session past its lifetime reads as `expired`; reads never write
 * (accept persists expiry), so rendering stays cheap.
 */
export async function renderMatchSession(db: Db, id: string, top: number, cache?: FrozenTopCache): Promise<RenderedSession> {
  const known = cache?.get(id);
  const row = await db
    .selectFrom('match_sessions as s')
    .select([
      's.match_session_id', 's.intent_id', 's.best_proposal_id', 's.summary', 's.expires_at', 's.developer_id', 's.created_at', 's.updated_at',
      // Absent when the frozen top is already known (null then).
      known ? sql<null>`null`.as('ranked_top') : 's.ranked_top',
      known ? sql<null>`null`.as('top_cards') : 's.top_cards',
      sql<MatchSessionRow['status']>`case when s.status in ('open', 'accepted') and s.expires_at <= now() then 'expired' else s.status end`.as('status'),
      // Correlated on the outer alias, which the standalone token query cannot name in its types.
      jsonArrayFrom(selectTokens(db).where(sql<boolean>`match_tokens.match_session_id = s.match_session_id`).orderBy('issued_at')).as('tokens'),
    ])
    .where('s.match_session_id', '=', id)
    .executeTakeFirst();
  if (!row) throw matchNotFound(id);
  const { ranked_top, top_cards, tokens, ...session } = row;
  const frozen = known ?? { rankedTop: ranked_top as unknown as RankedProposal[], topCards: top_cards as unknown as ProductCardDocumentT[] };
  if (!known) cache?.set(id, frozen);
  const cut = frozen.rankedTop.slice(0, top);
  const shown = new Set(cut.map((p) => String(p.product_id)));
  const cards = frozen.topCards.filter((c) => shown.has(c.product.id));
  return {
    session: { ...session, ranked_proposals: cut as unknown as MatchSessionRow['ranked_proposals'] },
    top: cut,
    cards,
    tokens: tokens.map((t) => ({
      ...t,
      issued_at: toDate(t.issued_at)!,
      expires_at: toDate(t.expires_at)!,
      accepted_at: toDate(t.accepted_at),
      updated_at: toDate(t.updated_at)!,
    })),
  };
}

/** The body of GET /v1/match/{id} (also the MCP tool get_match_session): the rendered session in its public views. */
export async function renderMatchSessionBody(db: Db, id: string, top: number, cache?: FrozenTopCache) {
  const { session, top: ranked, tokens, cards } = await renderMatchSession(db, id, top, cache);
  return { match_session: matchSessionView(session), ranked_proposals: ranked, match_tokens: tokens.map(matchTokenView), items: cards };
}
