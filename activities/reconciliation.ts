import { Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { reconcileAffiliateOrders } from '../src/reconciliation/matching';
import type { ReconciliationSummary } from '../src/schemas/reconciliation';
import { recordRunFinished, recordRunStarted, type RunStart } from '../src/reconciliation/runs';
import type { ReconciliationWindow } from '../src/supply/window';

/** How often the matching activity reports liveness while one long statement runs. */
const HEARTBEAT_EVERY_MS = 5000;

/** Activities of the reconciliation workflow: the run record, and the matching itself (src/supply). */
export function createReconciliationActivities({ db }: ActivityDeps) {
  return {
    async startReconciliationRun(run: RunStart): Promise<void> {
      await recordRunStarted(db, run);
    },
    async reconcileAffiliateOrders(input: { runId: string; source: string; window: ReconciliationWindow }): Promise<ReconciliationSummary> {
      const ctx = Context.current();
      let step = 'starting';
      const beat = setInterval(() => ctx.heartbeat(step), HEARTBEAT_EVERY_MS);
      try {
        return await reconcileAffiliateOrders(db, input, (s) => {
          step = s;
          ctx.heartbeat(s);
        });
      } finally {
        clearInterval(beat);
      }
    },
    async finishReconciliationRun(input: Parameters<typeof recordRunFinished>[1]): Promise<void> {
      await recordRunFinished(db, input);
    },
  };
}

export type ReconciliationActivities = ReturnType<typeof createReconciliationActivities>;
