import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { CardSource } from '../db/schema-recommend';
import type { IntentRow } from '../matching/intents';
import type { MatchSessionRow } from '../matching/match-sessions';
import type { ProposalRow } from '../matching/proposals';
import type { ProductCardDocumentT } from '../schemas/catalog';

export interface Recommendation {
  intent: IntentRow;
  proposals: ProposalRow[];
  /** Why the proposals entered their first state (the proposal_transitions reason). */
  transitionReason: string;
  cards: ProductCardDocumentT[];
  cardSource: CardSource;
  session: MatchSessionRow;
}

/**
 * Writes everything a recommendation leaves behind in one statement: the intent, its proposals and
 * their first transitions, the issued cards and the match session. One statement is atomic on its
 * own (the foreign keys are checked at its end) and costs one round trip instead of seven, which is
 * most of what a recommendation costs the API process. Rows go in whole, as JSON, through
 * jsonb_populate_record(set), so every column is given explicitly.
 */
export async function recordRecommendation(db: Db, r: Recommendation): Promise<void> {
  const cards = r.cards.map((c) => ({
    rec_id: c.rec_id,
    product_id: Number(c.product.id),
    source: r.cardSource,
    channel: c.channel ?? null,
    match_session_id: r.session.match_session_id,
    document: c,
    created_at: r.session.created_at,
  }));
  await sql`
    with
      i as (insert into intents select * from jsonb_populate_record(null::intents, ${JSON.stringify(r.intent)}::jsonb)),
      p as (
        insert into proposals select * from jsonb_populate_recordset(null::proposals, ${JSON.stringify(r.proposals)}::jsonb)
        returning proposal_id, proposal_state, created_at
      ),
      t as (insert into proposal_transitions (proposal_id, from_state, to_state, reason, at) select proposal_id, 'none', proposal_state, ${r.transitionReason}, created_at from p),
      c as (insert into rec_cards select * from jsonb_populate_recordset(null::rec_cards, ${JSON.stringify(cards)}::jsonb) on conflict (rec_id) do nothing)
    insert into match_sessions select * from jsonb_populate_record(null::match_sessions, ${JSON.stringify(r.session)}::jsonb)`.execute(db);
}
