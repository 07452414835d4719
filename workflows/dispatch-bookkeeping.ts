import * as wf from '@temporalio/workflow';
import type { DispatchActivities } from '../activities/dispatch';

/**
 * The dispatch activities that plan, claim and start delivery runs: database and Temporal calls only,
 * so they retry on infrastructure failures and heartbeat while starting runs in batches.
 */
export const { planSurgePage, claimDeadLetters, startDeliveryRuns } = wf.proxyActivities<DispatchActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 20 },
});
