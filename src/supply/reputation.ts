import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/connect';
import type { MerchantRow } from '../db/schema';
import type { MerchantReputationSnapshotsTable } from '../db/schema-supply';
import { newId } from '../ids';
import { iso } from '../time';
import { computeMerchantSla, type MerchantSla } from './sla';
import { round3, share, type MetricWindow } from './window';
import type { z } from 'zod';
import type { ReputationComponent as ReputationComponentSchema, ReputationComponentName } from '../schemas/merchant-ops';

/**
 * Reputation: score = round(Σ weight × value) over six components whose values are 0..1 and whose
 * weights sum to 100. A component without samples takes the neutral prior instead of 0 or 1, so a new
 * merchant starts in the middle and every number in the basis says where it came from.
 */

export const NEUTRAL_PRIOR = 0.5;
export const REPUTATION_WEIGHTS = {
  responsiveness: 20,
  delivery_success: 15,
  proposal_acceptance: 20,
  on_time_fulfillment: 20,
  customer_feedback: 10,
  trust_evidence: 15,
} as const satisfies Record<ReputationComponentName, number>;

/** Decision events read as the shopper's verdict; view, click and remix say nothing about the merchant. */
export const POSITIVE_FEEDBACK = ['pick', 'confirm', 'purchase'] as const;
export const NEGATIVE_FEEDBACK = ['nope', 'return', 'complaint'] as const;
const HISTORY_LIMIT = 10;

export type ReputationComponent = z.infer<typeof ReputationComponentSchema>;

function component(name: ReputationComponentName, observed: number | null, n: number, source: string): ReputationComponent {
  const priorUsed = observed === null || n === 0;
  const value = priorUsed ? NEUTRAL_PRIOR : observed;
  const weight = REPUTATION_WEIGHTS[name];
  return { name, value, n, weight, points: Math.round(weight * value * 100) / 100, prior_used: priorUsed, source };
}

/** Average trust_score.score (0..1, src/matching/trust-score.ts) of the merchant's proposals in the window. */
async function trustEvidence(db: Db, merchantId: string, w: MetricWindow) {
  const { rows } = await sql<{ n: number; mean: number | null }>`
    select count(*)::int as n, avg((trust_score->>'score')::float8) as mean
      from proposals
     where merchant_agent_id = ${merchantId} and created_at > ${w.from} and created_at <= ${w.to}
       and jsonb_typeof(trust_score->'score') = 'number'`.execute(db);
  return { n: rows[0]!.n, mean: round3(rows[0]!.mean) };
}

export function scoreReputation(sla: MerchantSla, trust: { n: number; mean: number | null }) {
  const m = sla.metrics;
  const positive = POSITIVE_FEEDBACK.reduce((s, t) => s + m.decision_feedback.counts[t], 0);
  const negative = NEGATIVE_FEEDBACK.reduce((s, t) => s + m.decision_feedback.counts[t], 0);
  const components = [
    component(
      'responsiveness',
      m.proposal_response.within_sla_share,
      m.proposal_response.dispatched,
      `share of delivered Intent.Surge dispatches answered with a proposal within ${m.proposal_response.sla_seconds} s (${m.proposal_response.sla_source})`,
    ),
    component('delivery_success', m.delivery_success.rate, m.delivery_success.n, 'delivered / (delivered + dlq) deliveries'),
    component(
      'proposal_acceptance',
      m.proposal_acceptance.rate,
      m.proposal_acceptance.n,
      'proposals accepted or settled, or whose match token reached accepted, payment_authorized or consumed',
    ),
    component(
      'on_time_fulfillment',
      m.on_time_fulfillment.rate,
      m.on_time_fulfillment.n,
      'fulfilled / (fulfilled + late_delivery) decision events',
    ),
    component(
      'customer_feedback',
      share(positive, positive + negative),
      positive + negative,
      `(${POSITIVE_FEEDBACK.join(' + ')}) / all of those + (${NEGATIVE_FEEDBACK.join(' + ')}) decision events`,
    ),
    component('trust_evidence', trust.mean, trust.n, 'mean trust_score.score of the proposals submitted in the window'),
  ];
  const score = Math.max(0, Math.min(100, Math.round(components.reduce((s, c) => s + c.weight * c.value, 0))));
  return {
    score,
    basis: {
      formula: 'score = round(Σ weight × value), values 0..1, weights sum to 100; a component without samples takes the neutral prior',
      neutral_prior: NEUTRAL_PRIOR,
      components,
      sla_window: sla.window,
    },
  };
}

const snapshotView = (s: Selectable<MerchantReputationSnapshotsTable>) => ({
  snapshot_id: s.snapshot_id,
  merchant_id: s.merchant_id,
  score: s.score,
  basis: s.basis as ReturnType<typeof scoreReputation>['basis'],
  window_days: s.window_days,
  computed_at: iso(s.computed_at)!,
});

/** Recomputes the score, stores it as a new snapshot and returns it with the snapshots before it. */
export async function recordReputation(db: Db, merchant: MerchantRow, w: MetricWindow) {
  const [sla, trust] = await Promise.all([computeMerchantSla(db, merchant, w), trustEvidence(db, merchant.merchant_id, w)]);
  const { score, basis } = scoreReputation(sla, trust);
  const previous = await db
    .selectFrom('merchant_reputation_snapshots')
    .selectAll()
    .where('merchant_id', '=', merchant.merchant_id)
    .orderBy('computed_at', 'desc')
    .orderBy('snapshot_id', 'desc')
    .limit(HISTORY_LIMIT)
    .execute();
  const stored = await db
    .insertInto('merchant_reputation_snapshots')
    .values({
      snapshot_id: newId('rep'),
      merchant_id: merchant.merchant_id,
      score,
      basis: JSON.stringify(basis),
      window_days: w.days,
      computed_at: w.to,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const last = previous[0];
  return {
    reputation: snapshotView(stored),
    history: previous.map(snapshotView),
    trend: last ? { previous_snapshot_id: last.snapshot_id, previous_score: last.score, delta: score - last.score } : null,
  };
}
