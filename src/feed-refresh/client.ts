import { ScheduleNotFoundError, type ScheduleOptions } from '@temporalio/client';
import { feedScheduleId } from '../catalog/feed-refresh';
import { temporalUnavailable } from '../errors';
import type { TemporalHandle } from '../temporal/client';
import { searchAttributes as SA } from '../temporal/names';
import { ensureSchedule } from '../temporal/schedules';
import { FEED_REFRESH_WORKFLOW, type FeedRefreshInput } from '../../workflows/feed-refresh.shared';

/**
 * The API's side of the feed-refresh flow: one Temporal Schedule per registered feed
 * (`feed-refresh-<feedId>`), which operators see, pause and trigger in the Temporal UI.
 */

export { feedScheduleId };

function scheduleOptions(taskQueue: string, feed: { feedId: string; merchantId: string; refreshIntervalS: number }): ScheduleOptions {
  const args: [FeedRefreshInput] = [{ feedId: feed.feedId, merchantId: feed.merchantId }];
  return {
    scheduleId: feedScheduleId(feed.feedId),
    spec: { intervals: [{ every: `${feed.refreshIntervalS}s` }] },
    action: {
      type: 'startWorkflow',
      workflowType: FEED_REFRESH_WORKFLOW,
      // Temporal appends the scheduled time, so every run has its own id under the feed's.
      workflowId: feedScheduleId(feed.feedId),
      taskQueue,
      args,
      typedSearchAttributes: [
        { key: SA.MerchantId, value: feed.merchantId },
        { key: SA.FlowStage, value: 'queued' },
      ],
      staticSummary: `Refresh of feed ${feed.feedId} (merchant ${feed.merchantId}) every ${feed.refreshIntervalS} s`,
    },
    // A refresh still going at the next tick is left alone; ticks missed while the cluster was down run once.
    policies: { overlap: 'SKIP', catchupWindow: `${feed.refreshIntervalS}s`, pauseOnFailure: false },
  };
}

/** Creates the feed's schedule (or brings it to this interval) and starts a first run now. */
type FeedSchedule = { feedId: string; merchantId: string; refreshIntervalS: number };

export async function scheduleFeedRefresh(temporal: TemporalHandle | null, feed: FeedSchedule): Promise<string> {
  if (!temporal) throw temporalUnavailable('Feed refresh');
  const { scheduleId } = await ensureSchedule(temporal.client, scheduleOptions(temporal.taskQueue, feed)).catch(() => {
    throw temporalUnavailable('Feed refresh');
  });
  await temporal.client.schedule
    .getHandle(scheduleId)
    .trigger('SKIP')
    .catch(() => undefined);
  return scheduleId;
}

/** Deletes the feed's schedule; one already gone is fine (a retried delete). */
export async function unscheduleFeedRefresh(temporal: TemporalHandle | null, feedId: string): Promise<void> {
  if (!temporal) throw temporalUnavailable('Feed refresh');
  try {
    await temporal.client.schedule.getHandle(feedScheduleId(feedId)).delete();
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) return;
    throw temporalUnavailable('Feed refresh');
  }
}
