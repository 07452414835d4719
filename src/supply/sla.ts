import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { MerchantRow } from '../db/schema';
import { DECISION_EVENT_TYPES, type DecisionEventType } from '../db/schema-supply';
import { DEFAULT_RESPONSE_WINDOW_S } from '../dispatch/deliveries';
import { iso } from '../time';
import { round3, share, type MetricWindow } from './window';
import type { z } from 'zod';
import type { MerchantSla as MerchantSlaSchema } from '../schemas/merchant-ops';

/**
 * A merchant's service levels over a window (docs/SUPPLY-OPS.md has the definitions). Every metric
 * carries its sample size `n`; a metric with no samples is null, never 0, so "nothing happened" cannot
 * read as "everything failed".
 */

/** A proposal in one of these states, or whose match token reached one of these, counts as accepted. */
export const ACCEPTED_PROPOSAL_STATES = ['accepted', 'settled'] as const;
export const ACCEPTED_TOKEN_STATES = ['accepted', 'payment_authorized', 'consumed'] as const;

export function declaredSlaSeconds(m: MerchantRow): number | null {
  return m.workflow_context.proposal_response_sla_seconds ?? null;
}

const between = (column: string, w: MetricWindow) => sql`${sql.ref(column)} > ${w.from} and ${sql.ref(column)} <= ${w.to}`;

/**
 * Latency from delivery to the merchant's first proposal for the intent. The clock starts at
 * delivered_at, not created_at: retries and dead time of the merchant's endpoint are delivery
 * success's business, and a merchant cannot answer an intent it has not received. A proposal made
 * before delivered_at (the merchant polled /v1/intents) counts as 0 s.
 */
async function proposalResponse(db: Db, merchantId: string, w: MetricWindow, slaSeconds: number) {
  const { rows } = await sql<{
    dispatched: number;
    answered: number;
    p50: number | null;
    p90: number | null;
    mean: number | null;
    within_sla: number;
  }>`
    with dispatched as (
      select d.delivered_at,
             (select min(p.created_at) from proposals p where p.intent_id = d.intent_id and p.merchant_agent_id = d.merchant_id) as first_proposal_at
        from deliveries d
       where d.merchant_id = ${merchantId} and d.state = 'delivered' and d.delivered_at is not null and ${between('d.created_at', w)}
    ), latency as (
      select greatest(0, extract(epoch from first_proposal_at - delivered_at))::float8 as s from dispatched where first_proposal_at is not null
    )
    select (select count(*) from dispatched)::int as dispatched,
           count(*)::int as answered,
           percentile_cont(0.5) within group (order by s) as p50,
           percentile_cont(0.9) within group (order by s) as p90,
           avg(s) as mean,
           (count(*) filter (where s <= ${slaSeconds}))::int as within_sla
      from latency`.execute(db);
  const r = rows[0]!;
  return {
    n: r.answered,
    dispatched: r.dispatched,
    unanswered: r.dispatched - r.answered,
    p50_seconds: round3(r.p50),
    p90_seconds: round3(r.p90),
    mean_seconds: round3(r.mean),
    within_sla: r.within_sla,
    within_sla_share: share(r.within_sla, r.dispatched),
  };
}

/** Deliveries created in the window: delivered against dead-lettered (those still under way are left out). */
async function deliverySuccess(db: Db, merchantId: string, w: MetricWindow) {
  const { rows } = await sql<{ delivered: number; dlq: number; in_progress: number; first_attempt: number }>`
    select (count(*) filter (where state = 'delivered'))::int as delivered,
           (count(*) filter (where state = 'dlq'))::int as dlq,
           (count(*) filter (where state in ('pending', 'inflight')))::int as in_progress,
           (count(*) filter (where state = 'delivered' and attempts = 1 and replays = 0))::int as first_attempt
      from deliveries
     where merchant_id = ${merchantId} and ${between('created_at', w)}`.execute(db);
  const r = rows[0]!;
  const n = r.delivered + r.dlq;
  return {
    n,
    delivered: r.delivered,
    dlq: r.dlq,
    in_progress: r.in_progress,
    rate: share(r.delivered, n),
    first_attempt_delivered: r.first_attempt,
    first_attempt_share: share(r.first_attempt, n),
  };
}

/** The merchant's proposals created in the window, and how many of them were accepted (see ACCEPTED_*). */
async function proposalAcceptance(db: Db, merchantId: string, w: MetricWindow) {
  const { rows } = await sql<{ n: number; accepted: number }>`
    select count(*)::int as n,
           (count(*) filter (where p.proposal_state in (${sql.join([...ACCEPTED_PROPOSAL_STATES])})
              or exists (select 1 from match_tokens t where t.proposal_id = p.proposal_id and t.acceptance_state in (${sql.join([...ACCEPTED_TOKEN_STATES])}))))::int as accepted
      from proposals p
     where p.merchant_agent_id = ${merchantId} and ${between('p.created_at', w)}`.execute(db);
  const r = rows[0]!;
  return { n: r.n, accepted: r.accepted, rate: share(r.accepted, r.n) };
}

export type DecisionCounts = Record<DecisionEventType, number>;

export async function decisionEventCounts(db: Db, merchantId: string, w: MetricWindow): Promise<DecisionCounts> {
  const rows = await db
    .selectFrom('decision_events')
    .select(['event_type', (eb) => eb.fn.countAll<string>().as('count')])
    .where('merchant_id', '=', merchantId)
    .where('created_at', '>', w.from)
    .where('created_at', '<=', w.to)
    .groupBy('event_type')
    .execute();
  const counts = Object.fromEntries(DECISION_EVENT_TYPES.map((t) => [t, 0])) as DecisionCounts;
  for (const r of rows) if (r.event_type in counts) counts[r.event_type] = Number(r.count);
  return counts;
}

export async function computeMerchantSla(db: Db, merchant: MerchantRow, w: MetricWindow): Promise<MerchantSla> {
  const declared = declaredSlaSeconds(merchant);
  // A merchant that declares no SLA is held to the respond_by window its Intent.Surge payload gave it.
  const slaSeconds = declared ?? DEFAULT_RESPONSE_WINDOW_S;
  const [response, delivery, acceptance, counts] = await Promise.all([
    proposalResponse(db, merchant.merchant_id, w, slaSeconds),
    deliverySuccess(db, merchant.merchant_id, w),
    proposalAcceptance(db, merchant.merchant_id, w),
    decisionEventCounts(db, merchant.merchant_id, w),
  ]);
  const fulfilled = counts.fulfilled;
  const late = counts.late_delivery;
  return {
    merchant_id: merchant.merchant_id,
    window: { days: w.days, from: iso(w.from)!, to: iso(w.to)! },
    metrics: {
      proposal_response: {
        ...response,
        sla_seconds: slaSeconds,
        sla_source: declared === null ? ('dispatch_default' as const) : ('declared' as const),
      },
      delivery_success: delivery,
      proposal_acceptance: acceptance,
      on_time_fulfillment: { n: fulfilled + late, fulfilled, late_delivery: late, rate: share(fulfilled, fulfilled + late) },
      decision_feedback: { n: Object.values(counts).reduce((a, b) => a + b, 0), counts },
    },
    computed_at: iso(w.to)!,
  };
}
export type MerchantSla = z.infer<typeof MerchantSlaSchema>;
