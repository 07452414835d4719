import { sql } from 'kysely';
import { LRUCache } from 'lru-cache';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { queryPrepared, type Db } from '../db/connect';
import { matchNotFound, matchSessionView, type MatchSessionRow } from './match-sessions';
import { matchTokenView, selectTokens, type MatchTokenRow } from './match-tokens';
import type { RankedProposal } from '../schemas/match';
import type { ProductCardDocumentT } from '../schemas/catalog';
import { getSessionCards } from '../recommend/issued-cards';
import { mayRead, type Caller } from '../tenancy';

export interface RenderedSession {
  session: Omit<MatchSessionRow, 'ranked_top'>;
  /** The first `top` ranked proposals (session.ranked_proposals holds the same cut). */
  top: RankedProposal[];
  tokens: MatchTokenRow[];
  /** The cards issued with the session for those proposals' products, in rank order. */
  cards: ProductCardDocumentT[];
  /** `top` and `cards` as JSON text, serialized once per process and cut. */
  frozenJson: () => { ranked: string; items: string };
}

/** What a session fixes at creation and never changes: its ranking's top and the cards issued for it. */
class FrozenTop {
  /** The JSON text of the cut last shown: every render of that cut repeats it verbatim (one kept, to bound memory). */
  private json?: { top: number; ranked: string; items: string };

  constructor(
    readonly rankedTop: RankedProposal[],
    readonly topCards: ProductCardDocumentT[],
  ) {}

  cut(top: number): { ranked: RankedProposal[]; cards: ProductCardDocumentT[] } {
    const ranked = this.rankedTop.slice(0, top);
    const shown = new Set(ranked.map((p) => String(p.product_id)));
    return { ranked, cards: this.topCards.filter((c) => shown.has(c.product.id)) };
  }

  cutJson(top: number): { ranked: string; items: string } {
    if (this.json?.top !== top) {
      const { ranked, cards } = this.cut(top);
      this.json = { top, ranked: JSON.stringify(ranked), items: JSON.stringify(cards) };
    }
    return this.json;
  }
}

/**
 * Frozen tops by session id, per process. Caching them is always correct (they never change) and
 * spares every render reading, parsing and serializing ten ranked proposals and ten cards; status
 * and tokens, which do change, are read on every render.
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
 * The session row a render reads: its status (a session past its lifetime reads as `expired`;
 * reads never write, accept persists expiry) and its tokens, plus the top of its ranking when
 * `withTop`. Never the full ranking, which may hold hundreds of entries.
 */
function sessionQuery(db: Db, id: string, withTop: boolean) {
  return db
    .selectFrom('match_sessions as s')
    .select([
      's.match_session_id',
      's.intent_id',
      's.best_proposal_id',
      's.summary',
      's.expires_at',
      's.developer_id',
      's.created_at',
      's.updated_at',
      // ranked_top is null when the whole ranking is the top (newMatchSessionRow).
      sql<MatchSessionRow['ranked_proposals'] | null>`${withTop ? sql`coalesce(s.ranked_top, s.ranked_proposals)` : sql`null`}`.as(
        'ranked_top',
      ),
      sql<
        MatchSessionRow['status']
      >`case when s.status in ('open', 'accepted') and s.expires_at <= now() then 'expired' else s.status end`.as('status'),
      // Correlated on the outer alias, which the standalone token query cannot name in its types.
      jsonArrayFrom(
        selectTokens(db)
          .where(sql<boolean>`match_tokens.match_session_id = s.match_session_id`)
          .orderBy('issued_at'),
      ).as('tokens'),
    ])
    .where('s.match_session_id', '=', id);
}

type SessionQueryRow = Awaited<ReturnType<ReturnType<typeof sessionQuery>['executeTakeFirst']>>;

/** The text of the render once the top is known: the same for every session (the id is its one parameter). */
let liveSessionSql: string | undefined;

/**
 * Reads what a render of a session whose top this process already holds needs: a statement
 * prepared once per connection (every request of GET /v1/match/{id} runs it).
 */
async function readLiveSession(db: Db, id: string): Promise<SessionQueryRow> {
  if (!liveSessionSql) {
    const compiled = sessionQuery(db, id, false).compile();
    if (compiled.parameters.length !== 1) throw new Error('the live session query must take the session id as its only parameter');
    liveSessionSql = compiled.sql;
  }
  const [row] = await queryPrepared<NonNullable<SessionQueryRow>>(db, 'render_match_session', liveSessionSql, [id]);
  return row;
}

/**
 * A session as GET /v1/match/{id} shows it: the stored top of the ranking, the cards issued for it,
 * and the session's tokens, cut to `top`. One statement once this process holds the top; the
 * first render also reads the top's cards.
 */
export async function renderMatchSession(
  db: Db,
  id: string,
  top: number,
  caller: Caller,
  cache?: FrozenTopCache,
): Promise<RenderedSession> {
  const known = cache?.get(id);
  const row = known ? await readLiveSession(db, id) : await sessionQuery(db, id, true).executeTakeFirst();
  // Another developer's session is not there for this caller (one without an owner is public by id).
  if (!row || !mayRead(caller, row.developer_id)) throw matchNotFound(id);
  const { ranked_top, tokens, ...session } = row;
  let frozen = known;
  if (!frozen) {
    // Read with the top, ranked_top is coalesced to the whole ranking in SQL, so it is never null here.
    const rankedTop = ranked_top ?? [];
    frozen = new FrozenTop(
      rankedTop,
      await getSessionCards(
        db,
        id,
        rankedTop.map((p) => p.product_id),
      ),
    );
    cache?.set(id, frozen);
  }
  const { ranked, cards } = frozen.cut(top);
  return {
    session: { ...session, ranked_proposals: ranked },
    top: ranked,
    cards,
    tokens: tokens.map((t) => ({
      ...t,
      issued_at: toDate(t.issued_at)!,
      expires_at: toDate(t.expires_at)!,
      accepted_at: toDate(t.accepted_at),
      updated_at: toDate(t.updated_at)!,
    })),
    frozenJson: () => frozen.cutJson(top),
  };
}

/** The body of GET /v1/match/{id} (also the MCP tool get_match_session): the rendered session in its public views. */
export async function renderMatchSessionBody(db: Db, id: string, top: number, caller: Caller, cache?: FrozenTopCache) {
  const { session, top: ranked, tokens, cards } = await renderMatchSession(db, id, top, caller, cache);
  return {
    match_session: matchSessionView(session),
    ranked_proposals: ranked,
    match_tokens: tokens.map((t) => matchTokenView(t, caller)),
    items: cards,
  };
}

/**
 * The same body as JSON text, with the frozen cut serialized once per process: on the busiest
 * read of a session, serializing ten cards and ranked proposals for every request cost more than
 * the rest of the render. Only the session's own fields and its tokens are serialized per request.
 */
export async function renderMatchSessionJson(db: Db, id: string, top: number, caller: Caller, cache?: FrozenTopCache): Promise<string> {
  const r = await renderMatchSession(db, id, top, caller, cache);
  const { ranked, items } = r.frozenJson();
  const { ranked_proposals: _shownBelow, ...head } = matchSessionView(r.session);
  const session = `${JSON.stringify(head).slice(0, -1)},"ranked_proposals":${ranked}}`;
  return `{"match_session":${session},"ranked_proposals":${ranked},"match_tokens":${JSON.stringify(r.tokens.map((t) => matchTokenView(t, caller)))},"items":${items}}`;
}
