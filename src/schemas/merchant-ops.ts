import { z } from 'zod';
import { DECISION_EVENT_TYPES } from '../db/schema-supply';
import { DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS } from '../supply/window';
import { isoDateTime, pathId } from './common';

export const MerchantOpsParams = z.object({ merchantId: pathId(128) });

export const MerchantOpsQuery = z.object({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_WINDOW_DAYS)
    .default(DEFAULT_WINDOW_DAYS)
    .meta({ description: `Look-back window in days, 1..${MAX_WINDOW_DAYS}, default ${DEFAULT_WINDOW_DAYS}.` }),
});

const int = z.number().int();
const n = int.meta({ description: 'Sample size: how many observations the metric is computed from.' });
const rate = z.number().nullable().meta({ description: '0..1 to 4 decimals; null when n = 0.' });
const seconds = z.number().nullable();

export const MetricWindowSchema = z
  .object({ days: int, from: isoDateTime, to: isoDateTime })
  .meta({ id: 'MetricWindow', description: 'Rows created after from and at or before to count.' });

export const MerchantSla = z
  .object({
    merchant_id: z.string(),
    window: MetricWindowSchema,
    metrics: z.object({
      proposal_response: z
        .object({
          n: int.meta({ description: 'Delivered dispatches the merchant answered with a proposal (latency samples).' }),
          dispatched: int.meta({ description: 'Intent.Surge deliveries created in the window and delivered.' }),
          unanswered: int.meta({ description: 'Delivered dispatches without any proposal from the merchant for that intent.' }),
          p50_seconds: seconds,
          p90_seconds: seconds,
          mean_seconds: seconds.meta({
            description: 'Seconds from delivered_at to the first proposal (linear-interpolated percentiles); null when n = 0.',
          }),
          sla_seconds: int.meta({
            description: 'workflow_context.proposal_response_sla_seconds, or the 600 s respond_by of the dispatch when none is declared.',
          }),
          sla_source: z.enum(['declared', 'dispatch_default']),
          within_sla: int,
          within_sla_share: rate.meta({
            description: 'Answered within sla_seconds / dispatched (unanswered ones count as misses); null when nothing was dispatched.',
          }),
        })
        .meta({ id: 'SlaProposalResponse' }),
      delivery_success: z
        .object({
          n: int.meta({ description: 'delivered + dlq; deliveries still pending or inflight are left out.' }),
          delivered: int,
          dlq: int,
          in_progress: int,
          rate,
          first_attempt_delivered: int,
          first_attempt_share: rate.meta({ description: 'Delivered on the first attempt without a replay / n.' }),
        })
        .meta({ id: 'SlaDeliverySuccess' }),
      proposal_acceptance: z
        .object({
          n: int.meta({ description: 'The merchant’s proposals created in the window.' }),
          accepted: int.meta({
            description: 'Of those, proposal_state accepted or settled, or a match token accepted, payment_authorized or consumed.',
          }),
          rate,
        })
        .meta({ id: 'SlaProposalAcceptance' }),
      on_time_fulfillment: z
        .object({
          n: int.meta({ description: 'fulfilled + late_delivery decision events.' }),
          fulfilled: int,
          late_delivery: int,
          rate,
        })
        .meta({ id: 'SlaOnTimeFulfillment' }),
      decision_feedback: z
        .object({
          n,
          counts: z.object(
            Object.fromEntries(DECISION_EVENT_TYPES.map((t) => [t, int])) as Record<(typeof DECISION_EVENT_TYPES)[number], typeof int>,
          ),
        })
        .meta({ id: 'SlaDecisionFeedback', description: 'Decision events naming this merchant in the window, per event_type.' }),
    }),
    computed_at: isoDateTime,
  })
  .meta({ id: 'MerchantSla' });

/** The reputation's components, in the order its basis lists them; their weights: src/supply/reputation.ts. */
export const REPUTATION_COMPONENTS = [
  'responsiveness',
  'delivery_success',
  'proposal_acceptance',
  'on_time_fulfillment',
  'customer_feedback',
  'trust_evidence',
] as const;
export type ReputationComponentName = (typeof REPUTATION_COMPONENTS)[number];

export const ReputationComponent = z
  .object({
    name: z.enum(REPUTATION_COMPONENTS),
    value: z.number().meta({ description: '0..1: the observed value, or the neutral prior when n = 0.' }),
    n,
    weight: int,
    points: z.number().meta({ description: 'weight × value, to 2 decimals.' }),
    prior_used: z.boolean().meta({ description: 'True when the component had no samples and took the neutral prior.' }),
    source: z.string(),
  })
  .meta({ id: 'ReputationComponent' });

export const ReputationSnapshot = z
  .object({
    snapshot_id: z.string(),
    merchant_id: z.string(),
    score: int.meta({ description: '0..100: round(sum of weight × value over the components).' }),
    basis: z.object({
      formula: z.string(),
      neutral_prior: z.number(),
      components: z.array(ReputationComponent),
      sla_window: MetricWindowSchema,
    }),
    window_days: int,
    computed_at: isoDateTime,
  })
  .meta({ id: 'ReputationSnapshot' });

export const MerchantReputation = z
  .object({
    reputation: ReputationSnapshot,
    history: z.array(ReputationSnapshot).meta({ description: 'Earlier snapshots, newest first, up to 10.' }),
    trend: z
      .object({ previous_snapshot_id: z.string(), previous_score: int, delta: int.meta({ description: 'score − previous_score.' }) })
      .nullable()
      .meta({ description: 'Change against the previous snapshot; null for the first one.' }),
  })
  .meta({ id: 'MerchantReputation' });
