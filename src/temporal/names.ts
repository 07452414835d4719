import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes operators filter on in the Temporal UI (DESIGN §5). All keywords. */
export const SEARCH_ATTRIBUTE_NAMES = ['IntentId', 'MerchantId', 'CheckoutId', 'FlowStage', 'DeliveryState'] as const;

/**
 * Workflow ids are business ids so that a duplicate start is the same run (DESIGN §5): each flow adds
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
};

/** Typed keys for the attributes above, for workflows (upsert) and the client (start). */
export const searchAttributes = {
  IntentId: defineSearchAttributeKey('IntentId', SearchAttributeType.KEYWORD),
  MerchantId: defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD),
  CheckoutId: defineSearchAttributeKey('CheckoutId', SearchAttributeType.KEYWORD),
  FlowStage: defineSearchAttributeKey('FlowStage', SearchAttributeType.KEYWORD),
  DeliveryState: defineSearchAttributeKey('DeliveryState', SearchAttributeType.KEYWORD),
};
