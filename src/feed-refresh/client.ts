import { ScheduleNotFoundError, type Client, type ScheduleOptions } from '@temporalio/client';
import { feedScheduleId } from '../catalog/feed-refresh';
import type { Db } from '../db/connect';
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

/** Feeds read per page at boot, and schedules ensured at once within a page. */
const ENSURE_PAGE = 200;
const ENSURE_CONCURRENCY = 8;

/**
 * One Schedule per active registered feed, ensured at every worker boot (worker/run.ts): a schedule
 * lost to a namespace reset or deleted by hand is created again (its next tick within one interval),
 * an existing one is brought to the feed's interval while keeping what operators set (paused,
 * notes). Pages through the feeds by id, a bounded number of Temporal calls in flight; safe from
 * any number of workers at once. A feed removed while this runs may get its schedule back: its runs
 * then find the feed gone and do nothing (`refreshFeed` skips a feed that is not active).
 */
export async function ensureFeedSchedules(client: Client, db: Db, taskQueue: string): Promise<{ ensured: number; created: string[] }> {
  const created: string[] = [];
  let ensured = 0;
  let after = '';
  for (;;) {
    const page = await db
      .selectFrom('merchant_feeds')
      .select(['feed_id', 'merchant_id', 'refresh_interval_s'])
      .where('status', '=', 'active')
      .where('feed_id', '>', after)
      .orderBy('feed_id')
      .limit(ENSURE_PAGE)
      .execute();
    for (let i = 0; i < page.length; i += ENSURE_CONCURRENCY) {
      const slice = page.slice(i, i + ENSURE_CONCURRENCY);
      const results = await Promise.all(
        slice.map((f) =>
          ensureSchedule(
            client,
            scheduleOptions(taskQueue, { feedId: f.feed_id, merchantId: f.merchant_id, refreshIntervalS: f.refresh_interval_s }),
          ),
        ),
      );
      for (const r of results) if (r.created) created.push(r.scheduleId);
    }
    ensured += page.length;
    if (page.length < ENSURE_PAGE) return { ensured, created };
    after = page.at(-1)!.feed_id;
  }
}
