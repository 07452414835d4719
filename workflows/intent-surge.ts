import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import * as wf from '@temporalio/workflow';
import type { DeliveryPolicy, DispatchActivities } from '../activities/dispatch';
import type { PlannedDelivery } from '../src/dispatch/deliveries';
import { searchAttributes as SA } from '../src/temporal/names';
import { delivery } from './delivery';

const { planSurgePage } = wf.proxyActivities<DispatchActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});

/** Merchants per planning page, and pages per run before the history is renewed (continue-as-new). */
export const SURGE_PAGE_SIZE = 200;
export const SURGE_PAGES_PER_RUN = 5;

export interface SurgeInput {
  intentId: string;
  /** Where the previous run stopped (continue-as-new). */
  after?: string | null;
  started?: number;
  /** Merchants per page (default SURGE_PAGE_SIZE); small values exercise paging in tests. */
  pageSize?: number;
}

/** Starts one delivery run per planned delivery; they outlive this workflow (ParentClosePolicy ABANDON). */
export async function startDeliveries(deliveries: PlannedDelivery[], policy: DeliveryPolicy): Promise<Array<{ delivery_id: string; workflow_id: string; run_id: string | null }>> {
  return Promise.all(
    deliveries.map(async (d) => {
      try {
        const child = await wf.startChild(delivery, {
          workflowId: d.workflow_id,
          args: [{ deliveryId: d.delivery_id, intentId: d.intent_id, merchantId: d.merchant_id, firstAttempt: d.first_attempt, replay: d.replay, policy }],
          parentClosePolicy: 'ABANDON',
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: [
            { key: SA.IntentId, value: d.intent_id },
            { key: SA.MerchantId, value: d.merchant_id },
            { key: SA.DeliveryState, value: 'pending' },
          ],
          staticSummary: `Intent.Surge ${d.intent_id} → ${d.merchant_id}${d.replay ? ` (replay ${d.replay})` : ''}`,
        });
        return { delivery_id: d.delivery_id, workflow_id: d.workflow_id, run_id: child.firstExecutionRunId };
      } catch (err) {
        // Already started (an operator reset the fan-out and it re-ran): that run owns the delivery.
        if (err instanceof WorkflowExecutionAlreadyStartedError) return { delivery_id: d.delivery_id, workflow_id: d.workflow_id, run_id: null };
        throw err;
      }
    }),
  );
}

/**
 * Intent.Surge fan-out: page through the merchants that subscribe to the intent, record a delivery for
 * each and start its delivery run. Thousands of merchants stay cheap: each page is one activity, and
 * the history is renewed every few pages.
 */
export async function intentSurge(input: SurgeInput): Promise<{ intentId: string; deliveries: number }> {
  wf.upsertSearchAttributes([{ key: SA.FlowStage, value: 'fan-out' }]);
  let after = input.after ?? null;
  let started = input.started ?? 0;
  for (let page = 0; page < SURGE_PAGES_PER_RUN; page++) {
    const planned = await planSurgePage(input.intentId, after, input.pageSize ?? SURGE_PAGE_SIZE);
    await startDeliveries(planned.deliveries, planned.policy);
    started += planned.deliveries.length;
    wf.setCurrentDetails(`${started} deliveries started`);
    if (planned.next === null) {
      wf.upsertSearchAttributes([{ key: SA.FlowStage, value: 'dispatched' }]);
      return { intentId: input.intentId, deliveries: started };
    }
    after = planned.next;
  }
  return wf.continueAsNew<typeof intentSurge>({ ...input, after, started });
}
