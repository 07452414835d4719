import * as R from '../../src/schemas/reconciliation';
import { loadReconciliationRun } from '../../src/reconciliation/runs';
import { DEFAULT_WAIT_S, DISCREPANCIES_SHOWN, MAX_WAIT_S, runReconciliation } from '../../src/reconciliation/client';
import { preferredWaitMs } from '../prefer-wait';
import { auth, linkTo, type RouteRegistry } from './registry';

const TAG = 'Reconciliation';
const getRun = (id: string) => linkTo('get', '/v1/reconciliation/runs/{runId}', { parameters: { 'path.runId': id } });

export function reconciliationRoutes(r: RouteRegistry): void {
  r.add({
    method: 'post',
    path: '/v1/reconciliation/platform-affiliate/run',
    tag: TAG,
    summary: 'Reconcile platform-affiliate orders',
    description:
      'Runs the reconciliation workflow (docs/RECONCILIATION.md): the platform orders of the window (from the import table, or another registered source) are matched to checkouts, match tokens and rec_ids; the run reports matched orders, amount mismatches, unmatched orders on each side and duplicates, and is stored. The caller waits up to 60 s (`Prefer: wait=N`, 0..60); past it the answer is 202 with the status URL. The same workflow runs daily from the Temporal Schedule reconcile-daily. An operator power: supply key only (docs/TENANCY.md). Beyond what the schema states: source must name a source with imported orders or a registered one (400 invalid_source), and as_of must not be in the future (400 invalid_as_of).',
    auth: auth.supply,
    body: R.ReconciliationRunBody,
    invalidCode: 'invalid_days',
    responses: {
      200: {
        description: 'The finished run: summary and the first discrepancies of each kind.',
        schema: R.ReconciliationEnvelope,
        links: { GetReconciliationRun: getRun('$response.body#/reconciliation/run_id') },
      },
      202: {
        description: 'Still running; poll status_url (also in Location).',
        schema: R.ReconciliationAccepted,
        links: { GetReconciliationRun: getRun('$response.body#/run_id') },
      },
    },
    errors: [
      [400, 'invalid_days', 'days is not an integer 1..30 (or a body member has the wrong JSON type; the message names it).'],
      [400, 'invalid_source', 'No order source of that name.'],
      [400, 'invalid_as_of', 'as_of is not an ISO 8601 date-time in the past.'],
      [503, 'temporal_unavailable', 'Temporal is not reachable.'],
    ],
    handler: async (ctx, { body }) => {
      const out = await runReconciliation(
        ctx.deps,
        body,
        preferredWaitMs(ctx.get('prefer'), { defaultS: DEFAULT_WAIT_S, maxS: MAX_WAIT_S }),
      );
      if (out.status === 'finished') return { body: { reconciliation: out.run } };
      const statusUrl = `/v1/reconciliation/runs/${out.runId}`;
      // No worker polls: the run waits for one; the caller polls later rather than at once.
      const headers = { location: statusUrl, ...(out.noWorker ? { 'retry-after': '15' } : {}) };
      return { status: 202, headers, body: { run_id: out.runId, status: 'running', status_url: statusUrl } };
    },
  });

  r.add({
    method: 'get',
    path: '/v1/reconciliation/runs/{runId}',
    tag: TAG,
    summary: 'Get a reconciliation run',
    description:
      'A stored run, scheduled or on demand: while it runs, status running and no summary; then its summary and the first discrepancies of each kind.',
    auth: auth.supply,
    params: R.ReconciliationRunIdParams,
    notFoundCode: 'reconciliation_run_not_found',
    responses: { 200: { description: 'The run.', schema: R.ReconciliationEnvelope } },
    errors: [[404, 'reconciliation_run_not_found', 'No run with this id.']],
    handler: async (ctx, { params }) => ({
      body: { reconciliation: await loadReconciliationRun(ctx.deps.db, params.runId, DISCREPANCIES_SHOWN) },
    }),
  });
}
