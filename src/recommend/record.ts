import { sql } from 'kysely';
import { isDatabaseUnavailable, type Db } from '../db/connect';
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
 * Writes everything the given recommendations leave behind in one statement: their intents,
 * proposals and the proposals' first transitions, the issued cards and the match sessions. One
 * statement is atomic on its own (the foreign keys are checked at its end) and costs one round trip
 * instead of seven per recommendation. Rows go in whole, as JSON, through jsonb_populate_recordset,
 * so every column is given explicitly.
 */
export async function recordRecommendations(db: Db, rs: Recommendation[]): Promise<void> {
  const transitions = rs.flatMap((r) =>
    r.proposals.map((p) => ({
      proposal_id: p.proposal_id,
      from_state: 'none',
      to_state: p.proposal_state,
      reason: r.transitionReason,
      at: p.created_at,
    })),
  );
  const cards = rs.flatMap((r) =>
    r.cards.map((c) => ({
      rec_id: c.rec_id,
      product_id: Number(c.product.id),
      source: r.cardSource,
      channel: c.channel ?? null,
      match_session_id: r.session.match_session_id,
      document: c,
      created_at: r.session.created_at,
    })),
  );
  await sql`
    with
      i as (insert into intents select * from jsonb_populate_recordset(null::intents, ${JSON.stringify(rs.map((r) => r.intent))}::jsonb)),
      p as (insert into proposals select * from jsonb_populate_recordset(null::proposals, ${JSON.stringify(rs.flatMap((r) => r.proposals))}::jsonb)),
      t as (
        insert into proposal_transitions (proposal_id, from_state, to_state, reason, at)
        select proposal_id, from_state, to_state, reason, at
        from jsonb_to_recordset(${JSON.stringify(transitions)}::jsonb) as x(proposal_id text, from_state text, to_state text, reason text, at timestamptz)
      ),
      c as (insert into rec_cards select * from jsonb_populate_recordset(null::rec_cards, ${JSON.stringify(cards)}::jsonb) on conflict (rec_id) do nothing)
    insert into match_sessions select * from jsonb_populate_recordset(null::match_sessions, ${JSON.stringify(rs.map((r) => r.session))}::jsonb)`.execute(
    db,
  );
}

interface Pending {
  r: Recommendation;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Coalesces the writes of concurrent recommendations: a write starts at once when none is in
 * flight, and the recommendations that arrive meanwhile go together in the next one. Alone, a
 * request waits for nothing; under load, a statement carries several recommendations, which costs
 * Postgres about half as much per recommendation as one statement each (docs/BENCHMARKS.md). Each
 * caller still returns only after its own rows are committed. When a shared write fails on its
 * data, its recommendations are written each on its own, so one bad record fails only its own
 * request; when it fails for want of a database, they all fail at once.
 */
export class RecommendationRecorder {
  private queue: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly db: Db,
    private readonly opts: { maxInFlight: number; maxBatch: number } = { maxInFlight: 1, maxBatch: 16 },
  ) {}

  record(r: Recommendation): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ r, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.opts.maxInFlight && this.queue.length) {
      const batch = this.queue.splice(0, this.opts.maxBatch);
      this.inFlight++;
      void this.write(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      await recordRecommendations(
        this.db,
        batch.map((b) => b.r),
      );
      for (const b of batch) b.resolve();
    } catch (err) {
      // Without a database every write would fail the same way: answer them all now.
      if (batch.length === 1 || isDatabaseUnavailable(err)) return batch.forEach((b) => b.reject(err));
      await Promise.all(batch.map((b) => recordRecommendations(this.db, [b.r]).then(b.resolve, b.reject)));
    }
  }
}
