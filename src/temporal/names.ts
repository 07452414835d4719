import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Search attributes operators filter on in the Temporal UI (DESIGN §5). All keywords. */
export const SEARCH_ATTRIBUTE_NAMES = ['IntentId', 'MerchantId', 'CheckoutId', 'FlowStage', 'DeliveryState'] as const;
export type SearchAttributeName = (typeof SEARCH_ATTRIBUTE_NAMES)[number];

const keyword = (name: string) => defineSearchAttributeKey(name, SearchAttributeType.KEYWORD);
export const searchAttributes = Object.fromEntries(SEARCH_ATTRIBUTE_NAMES.map((n) => [n, keyword(n)])) as Record<
  SearchAttributeName,
  ReturnType<typeof keyword>
>;

/** Workflow ids are business ids so that a duplicate start is the same run (DESIGN §5). */
export const workflowIds = {
  ping: (id: string) => `ping-${id}`,
  runtime: (runtimeId: string) => `runtime-${runtimeId}`,
  checkout: (checkoutId: string) => `checkout-${checkoutId}`,
  surge: (intentId: string) => `surge-${intentId}`,
  delivery: (deliveryId: string, replay?: number) => `delivery-${deliveryId}${replay ? `-replay-${replay}` : ''}`,
  reconcile: (date: string) => `reconcile-${date}`,
};
