import { ApplicationFailure, Context } from '@temporalio/activity';
import type { ActivityDeps } from './deps';
import { FeedRefreshError, recordRefreshFailure, refreshFeed, type FeedRefreshResult } from '../src/catalog/feed-refresh';

const HEARTBEAT_EVERY_MS = 5000;

/** Activities of the feed-refresh workflow: thin wrappers over src/catalog/feed-refresh.ts. */
export function createFeedActivities({ db, config }: ActivityDeps) {
  return {
    async refreshMerchantFeed(input: { feedId: string; runId: string; workflowId: string }): Promise<FeedRefreshResult> {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
      try {
        return await refreshFeed(db, config, input);
      } catch (err) {
        if (err instanceof FeedRefreshError) throw ApplicationFailure.nonRetryable(err.message, 'FeedRefreshError');
        throw err;
      } finally {
        clearInterval(beat);
      }
    },
    async recordFeedRefreshFailure(input: { feedId: string; runId: string; workflowId: string; error: string }): Promise<void> {
      await recordRefreshFailure(db, input);
    },
  };
}

export type FeedActivities = ReturnType<typeof createFeedActivities>;
