import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** The task queue a deployment uses unless TEMPORAL_TASK_QUEUE says otherwise. */
export const DEFAULT_TASK_QUEUE = 'gateway';

/**
 * The id of a deployment-wide thing (a Schedule, a long-running loop) on `taskQueue`: `name` on the
 * default queue, `name-<task queue>` on any other (tests, a second deployment in one namespace), so no
 * worker re-points another queue's.
 */
export const perTaskQueue = (name: string, taskQueue: string): string => (taskQueue === DEFAULT_TASK_QUEUE ? name : `${name}-${taskQueue}`);

/** Search attributes operators filter on in the Temporal UI (docs/CONTRACT.md#temporal). All keywords. */
export const SEARCH_ATTRIBUTE_NAMES = ['IntentId', 'MerchantId', 'CheckoutId', 'FlowStage', 'DeliveryState'] as const;

/**
 * Workflow ids are business ids so that a duplicate start is the same run (docs/CONTRACT.md#temporal): each flow adds
 * its builder here (`runtime-<id>`, `checkout-<id>`, `surge-<intent_id>`, `delivery-<id>[-replay-<n>]`,
 * `reconcile-<date>`).
 */
export const workflowIds = {
  ping: (id: string) => `ping-${id}`,
  surge: (intentId: string) => `surge-${intentId}`,
  /** One delivery's run: the first, then one per replay out of the dead-letter queue. */
  delivery: (deliveryId: string, replay: number) => (replay ? `delivery-${deliveryId}-replay-${replay}` : `delivery-${deliveryId}`),
  dlqReplay: (id: string) => `dlq-replay-${id}`,
  /** One agentic checkout: plan, confirm (Update), handoff, or expiry by timer. */
  checkout: (checkoutId: string) => `checkout-${checkoutId}`,
  /** One commerce runtime run (docs/RUNTIME.md). */
  runtime: (runtimeId: string) => `runtime-${runtimeId}`,
  /**
   * Reconciliation run by the daily Schedule: Temporal appends the scheduled time
   * (`reconcile-2026-11-24T03:00:00Z`); another task queue's schedule gets its own prefix.
   */
  reconcileScheduled: (taskQueue: string) => perTaskQueue('reconcile', taskQueue),
  /** On demand: one id per day (or explicit as_of), source and length, so a repeated call joins a running run. */
  reconcileOnDemand: (asOf: string | undefined, today: Date, source: string, days: number) =>
    `reconcile-${asOf ?? today.toISOString().slice(0, 10)}-${source}-${days}d`,
};

/** Typed keys for the attributes above, for workflows (upsert) and the client (start). */
export const searchAttributes = {
  IntentId: defineSearchAttributeKey('IntentId', SearchAttributeType.KEYWORD),
  MerchantId: defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD),
  CheckoutId: defineSearchAttributeKey('CheckoutId', SearchAttributeType.KEYWORD),
  FlowStage: defineSearchAttributeKey('FlowStage', SearchAttributeType.KEYWORD),
  DeliveryState: defineSearchAttributeKey('DeliveryState', SearchAttributeType.KEYWORD),
};
