/**
 * What clients of the feed-refresh flow import (docs/CATALOG.md, "Feeds that refresh themselves"):
 * its input and outcome. No Node or activity imports here.
 */

export const FEED_REFRESH_WORKFLOW = 'feedRefresh';

export interface FeedRefreshInput {
  feedId: string;
  merchantId: string;
}

export interface FeedRefreshOutcome {
  runId: string;
  status: 'succeeded' | 'not_modified' | 'skipped' | 'failed';
  rowsRead: number;
  added: number;
  changed: number;
  removed: number;
  rejected: number;
  error?: string;
}
