import * as wf from '@temporalio/workflow';
import { searchAttributes as SA } from '../src/temporal/names';
import { planSurgePage, startDeliveryRuns } from './dispatch-bookkeeping';

/** Merchants per planning page, and pages per run before the history is renewed (continue-as-new). */
export const SURGE_PAGE_SIZE = 200;
export const SURGE_PAGES_PER_RUN = 25;

export interface SurgeInput {
  intentId: string;
  /** Where the previous run stopped (continue-as-new). */
  after?: string | null;
  started?: number;
  /** Merchants per page (default SURGE_PAGE_SIZE); small values exercise paging in tests. */
  pageSize?: number;
}

/**
 * Intent.Surge fan-out: page through the merchants that subscribe to the intent, record a delivery for
 * each and start its delivery run (a workflow of its own, which outlives this one). Thousands of
 * merchants stay cheap: each page is two activities, and the history is renewed every few pages.
 */
export async function intentSurge(input: SurgeInput): Promise<{ intentId: string; deliveries: number }> {
  wf.upsertSearchAttributes([{ key: SA.FlowStage, value: 'fan-out' }]);
  let after = input.after ?? null;
  let started = input.started ?? 0;
  for (let page = 0; page < SURGE_PAGES_PER_RUN; page++) {
    const planned = await planSurgePage(input.intentId, after, input.pageSize ?? SURGE_PAGE_SIZE);
    await startDeliveryRuns(planned.deliveries, planned.policy);
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
