import { z } from 'zod';
import { isoDateTime } from './common';
import { RECONCILIATION_DAYS } from '../supply/window';

/** POST /v1/reconciliation/platform-affiliate/run and GET /v1/reconciliation/runs/{runId} (docs/RECONCILIATION.md). */

/** What a discrepancy row says went wrong (`reconciliation_discrepancies.kind`). */
export type DiscrepancyKind = 'unmatched_platform_order' | 'unmatched_gateway_record' | 'amount_mismatch' | 'duplicate_order';

/** A run's amounts in one currency, in minor units, as its stored summary keeps them. */
export interface CurrencyAmounts {
  currency: string;
  /** Completed orders as the platform reports them. */
  platform_order_cents: number;
  matched_cents: number;
  commission_cents: number;
  refunded_or_cancelled_cents: number;
  mismatch_expected_cents: number;
  mismatch_actual_cents: number;
  unmatched_platform_cents: number;
  unmatched_gateway_cents: number;
}

/**
 * What a run found (`reconciliation_runs.summary`, and the workflow's result). The API shows it in its own
 * shape, amounts in major units (`Summary` below, src/reconciliation/runs.ts).
 */
export interface ReconciliationSummary {
  orders: { rows: number; distinct: number; completed: number; refunded: number; cancelled: number };
  /** Each distinct order lands in exactly one outcome. */
  outcomes: { matched: number; amount_mismatch: number; unmatched_platform_order: number; duplicate_claim: number };
  matched_by: { checkout: number; match_token: number; rec_card: number };
  gateway_records: { expected: number; claimed: number; unclaimed: number };
  discrepancies: Record<DiscrepancyKind, number>;
  /** How many discrepancy rows of each kind were stored (at most stored_limit_per_kind). */
  stored: Record<DiscrepancyKind, number>;
  stored_limit_per_kind: number;
  amounts: CurrencyAmounts[];
}

/** What an order source may be called (an import's `source`, a registered source's name). */
export const ORDER_SOURCE_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

export const ReconciliationRunBody = z
  .strictObject({
    days: z
      .number()
      .int()
      .min(RECONCILIATION_DAYS.min)
      .max(RECONCILIATION_DAYS.max)
      .default(RECONCILIATION_DAYS.default)
      .meta({ description: 'Days of orders to reconcile, ending now (or at as_of): integer 1..30, default 1.' }),
    // Content checks (→ invalid_source / invalid_as_of) are the domain's: the body's own code is about
    // days. The document states the name's shape all the same (the domain refuses any other).
    source: z.string().max(64).optional().meta({
      description:
        'Order source: platform_affiliate (default), a source name given to the importer, or a registered source. Another name is 400 invalid_source.',
      pattern: ORDER_SOURCE_NAME.source,
    }),
    as_of: isoDateTime.optional().meta({ description: 'End of the window (ISO 8601, not in the future); default now.' }),
  })
  .meta({ id: 'ReconciliationRunRequest' });

export const ReconciliationRunIdParams = z.object({ runId: z.string().regex(/^rcn_[A-Za-z0-9_-]{1,64}$/) });

const count = z.number().int();
const kindCounts = z.object({
  unmatched_platform_order: count,
  unmatched_gateway_record: count,
  amount_mismatch: count,
  duplicate_order: count,
});

const Discrepancy = z
  .object({
    order_id: z.string().nullable().meta({ description: "The platform's order id; null for an unmatched gateway record." }),
    ref_type: z.string().nullable().meta({ description: 'checkout, match_token, rec_card, or order (an order listed more than once).' }),
    ref_id: z.string().nullable(),
    expected_amount: z.number().nullable().meta({ description: "The gateway's amount." }),
    actual_amount: z.number().nullable().meta({ description: "The platform's amount." }),
    currency: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()).meta({ description: 'Why, and where in the report (line, import batch).' }),
  })
  .meta({ id: 'ReconciliationDiscrepancy' });

const Summary = z
  .object({
    orders: z.object({ rows: count, distinct: count, completed: count, refunded: count, cancelled: count }),
    outcomes: z
      .object({ matched: count, amount_mismatch: count, unmatched_platform_order: count, duplicate_claim: count })
      .meta({ description: 'Each distinct order in exactly one outcome.' }),
    matched_by: z.object({ checkout: count, match_token: count, rec_card: count }),
    gateway_records: z
      .object({ expected: count, claimed: count, unclaimed: count })
      .meta({ description: 'Confirmed checkouts and paid match tokens of the window, and how many an order names.' }),
    discrepancies: kindCounts.meta({ description: 'Exact counts per kind.' }),
    stored: kindCounts.meta({ description: 'Discrepancy rows stored per kind (at most stored_limit_per_kind).' }),
    stored_limit_per_kind: count,
    amounts: z.array(
      z.object({
        currency: z.string(),
        platform_orders: z.number(),
        matched: z.number(),
        commission: z.number(),
        refunded_or_cancelled: z.number(),
        mismatch_expected: z.number(),
        mismatch_actual: z.number(),
        unmatched_platform_orders: z.number(),
        unmatched_gateway_records: z.number(),
      }),
    ),
  })
  .meta({ id: 'ReconciliationSummary' });

export const ReconciliationRun = z
  .object({
    run_id: z.string(),
    workflow_id: z.string().meta({ description: 'The Temporal workflow that ran it (reconcile-…).' }),
    status: z.enum(['running', 'completed', 'failed']),
    trigger: z.enum(['api', 'schedule']),
    source: z.string(),
    window: z
      .object({ start: isoDateTime, end: isoDateTime, days: count })
      .meta({ description: 'Orders and gateway records with start <= time < end.' }),
    summary: Summary.nullable().meta({ description: 'null until the run completes.' }),
    discrepancies: z
      .object({
        unmatched_platform_order: z.array(Discrepancy),
        unmatched_gateway_record: z.array(Discrepancy),
        amount_mismatch: z.array(Discrepancy),
        duplicate_order: z.array(Discrepancy),
      })
      .meta({ description: 'The first 20 stored discrepancies of each kind.' }),
    error: z.string().nullable(),
    started_at: isoDateTime,
    finished_at: isoDateTime.nullable(),
  })
  .meta({ id: 'ReconciliationRun' });

export const ReconciliationEnvelope = z.object({ reconciliation: ReconciliationRun }).meta({ id: 'ReconciliationEnvelope' });

export const ReconciliationAccepted = z
  .object({ run_id: z.string(), status: z.literal('running'), status_url: z.string() })
  .meta({ id: 'ReconciliationAccepted' });
