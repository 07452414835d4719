import * as wf from '@temporalio/workflow';
import type { FeedActivities } from '../activities/feed-refresh';
import { searchAttributes as SA } from '../src/temporal/names';
import type { FeedRefreshInput, FeedRefreshOutcome } from './feed-refresh.shared';
import { statesVersioning } from './versioning';

const recording = wf.proxyActivities<FeedActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});
// Fetch and import are one activity: the body is never a workflow payload. The fetch has its own
// deadline (FEED_FETCH_TIMEOUT_MS); the activity heartbeats, so a dead worker is noticed in 30 s.
// Feed problems (unreachable, bad answer, unreadable file) are not retried: the next tick is the retry.
const refreshing = wf.proxyActivities<FeedActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30 seconds',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 3,
    nonRetryableErrorTypes: ['FeedRefreshError'],
  },
});

/**
 * One scheduled refresh of a merchant's registered feed: fetch it (conditionally), import what
 * changed, record the run. Started by the feed's Schedule `feed-refresh-<feedId>`; a failed run is
 * recorded with its reason and the workflow completes, so the schedule keeps going.
 */
export async function feedRefresh(input: FeedRefreshInput): Promise<FeedRefreshOutcome> {
  const runId = `frun_${wf.uuid4().replaceAll('-', '')}`;
  const { workflowId } = wf.workflowInfo();
  const stage = (s: string, details: string) => {
    wf.upsertSearchAttributes([{ key: SA.FlowStage, value: s }]);
    wf.setCurrentDetails(details);
  };
  stage('refreshing', `feed ${input.feedId} of ${input.merchantId}: run ${runId}`);
  try {
    const result = await refreshing.refreshMerchantFeed({ feedId: input.feedId, runId, workflowId });
    const counts = `${result.added} added, ${result.changed} changed, ${result.removed} removed, ${result.rejected} rejected`;
    stage(result.status, `run ${runId}: ${result.rowsRead} rows read, ${counts}`);
    return result;
  } catch (err) {
    if (!(err instanceof wf.ActivityFailure)) throw err;
    const error = err.cause?.message ?? err.message;
    await recording.recordFeedRefreshFailure({ feedId: input.feedId, runId, workflowId, error });
    stage('failed', `run ${runId}: ${error}`);
    return { runId, status: 'failed', rowsRead: 0, added: 0, changed: 0, removed: 0, rejected: 0, error };
  }
}
// Pinned: a scheduled run of minutes; each Schedule tick starts on the current version.
statesVersioning('PINNED', feedRefresh);
