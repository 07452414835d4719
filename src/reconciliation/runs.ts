import type { Db } from '../db/connect';
import type { ReconciliationTrigger } from '../db/schema-supply';
import { AppError } from '../errors';
import { fromMinorUnits } from '../money';
import { newId } from '../ids';
import { iso } from '../time';
import { DISCREPANCY_KINDS } from './matching';
import type { DiscrepancyKind, ReconciliationSummary } from '../schemas/reconciliation';
import type { ReconciliationWindow } from '../supply/window';

/** The stored record of each reconciliation run (`reconciliation_runs` + its discrepancy rows). */

export const newReconciliationRunId = () => newId('rcn');

export interface RunStart {
  runId: string;
  workflowId: string;
  trigger: ReconciliationTrigger;
  source: string;
  window: ReconciliationWindow;
}

/** Idempotent: a retried activity finds the row it wrote and leaves it. */
export async function recordRunStarted(db: Db, r: RunStart): Promise<void> {
  await db
    .insertInto('reconciliation_runs')
    .values({
      run_id: r.runId,
      workflow_id: r.workflowId,
      trigger: r.trigger,
      source: r.source,
      days: r.window.days,
      window_start: new Date(r.window.start),
      window_end: new Date(r.window.end),
      status: 'running',
    })
    .onConflict((oc) => oc.column('run_id').doNothing())
    .execute();
}

export async function recordRunFinished(
  db: Db,
  r: { runId: string } & ({ status: 'completed'; summary: ReconciliationSummary } | { status: 'failed'; error: string }),
): Promise<void> {
  await db
    .updateTable('reconciliation_runs')
    .set({
      status: r.status,
      summary: r.status === 'completed' ? JSON.stringify(r.summary) : '{}',
      error: r.status === 'failed' ? r.error.slice(0, 2000) : null,
      finished_at: new Date(),
    })
    .where('run_id', '=', r.runId)
    .execute();
}

/** The stored summary as the API shows it: money in major units. */
function summaryView(s: ReconciliationSummary | Record<string, never>) {
  if (!('orders' in s)) return null;
  return {
    ...s,
    amounts: s.amounts.map((a) => {
      const major = (minor: number) => fromMinorUnits(minor, a.currency);
      return {
        currency: a.currency,
        platform_orders: major(a.platform_order_cents),
        matched: major(a.matched_cents),
        commission: major(a.commission_cents),
        refunded_or_cancelled: major(a.refunded_or_cancelled_cents),
        mismatch_expected: major(a.mismatch_expected_cents),
        mismatch_actual: major(a.mismatch_actual_cents),
        unmatched_platform_orders: major(a.unmatched_platform_cents),
        unmatched_gateway_records: major(a.unmatched_gateway_cents),
      };
    }),
  };
}

/** A run with the first `perKind` stored discrepancies of each kind; 404 when there is none. */
export async function loadReconciliationRun(db: Db, runId: string, perKind: number) {
  const run = await db.selectFrom('reconciliation_runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
  if (!run) throw new AppError(404, 'reconciliation_run_not_found', `No reconciliation run ${runId}.`);
  const rows = await db
    .selectFrom('reconciliation_discrepancies')
    .selectAll()
    .where('run_id', '=', runId)
    .where('id', 'in', (eb) =>
      eb
        .selectFrom(
          eb
            .selectFrom('reconciliation_discrepancies as d')
            .select([
              'd.id',
              (x) =>
                x.fn
                  .agg<number>('row_number')
                  .over((o) => o.partitionBy('d.kind').orderBy('d.id'))
                  .as('n'),
            ])
            .where('d.run_id', '=', runId)
            .as('ranked'),
        )
        .select('ranked.id')
        .where('ranked.n', '<=', perKind),
    )
    .orderBy('id')
    .execute();
  const discrepancies = Object.fromEntries(DISCREPANCY_KINDS.map((k) => [k, [] as unknown[]])) as Record<DiscrepancyKind, unknown[]>;
  for (const d of rows) {
    discrepancies[d.kind].push({
      order_id: d.order_id,
      ref_type: d.ref_type,
      ref_id: d.ref_id,
      expected_amount: d.expected_amount_cents === null ? null : fromMinorUnits(d.expected_amount_cents, d.currency ?? 'USD'),
      actual_amount: d.actual_amount_cents === null ? null : fromMinorUnits(d.actual_amount_cents, d.currency ?? 'USD'),
      currency: d.currency,
      detail: d.detail,
    });
  }
  return {
    run_id: run.run_id,
    workflow_id: run.workflow_id,
    status: run.status,
    trigger: run.trigger,
    source: run.source,
    window: { start: iso(run.window_start), end: iso(run.window_end), days: run.days },
    summary: summaryView(run.summary),
    discrepancies,
    error: run.error,
    started_at: iso(run.started_at),
    finished_at: iso(run.finished_at),
  };
}
export type ReconciliationRunView = Awaited<ReturnType<typeof loadReconciliationRun>>;
