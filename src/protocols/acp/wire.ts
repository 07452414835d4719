import { z } from 'zod';

/**
 * The parts of the ACP 2026-04-17 checkout wire format the agent reads, as zod schemas. They are
 * deliberately loose (unknown members pass, open enums stay strings): the seller is the system of
 * record and later protocol versions add fields, so the agent checks only what it relies on and
 * keeps the rest as the seller sent it.
 */

export const ACP_API_VERSION = '2026-04-17';

const amount = z.number().int();

export const acpTotal = z.looseObject({
  type: z.string(),
  display_text: z.string().optional(),
  amount,
});
export type AcpTotal = z.infer<typeof acpTotal>;

export const acpLineItem = z.looseObject({
  id: z.string(),
  item: z.looseObject({ id: z.string(), name: z.string().optional(), unit_amount: amount.optional() }),
  quantity: z.number().int().min(0),
  name: z.string().optional(),
  unit_amount: amount.optional(),
  totals: z.array(acpTotal).optional(),
});
export type AcpLineItem = z.infer<typeof acpLineItem>;

export const acpFulfillmentOption = z.looseObject({
  type: z.string(),
  id: z.string(),
  title: z.string(),
  totals: z.array(acpTotal).optional(),
});
export type AcpFulfillmentOption = z.infer<typeof acpFulfillmentOption>;

export const acpSelectedFulfillment = z.looseObject({
  type: z.string().optional(),
  option_id: z.string(),
  item_ids: z.array(z.string()).optional(),
});

export const acpMessage = z.looseObject({
  type: z.string(),
  code: z.string().nullish(),
  severity: z.string().optional(),
  resolution: z.string().optional(),
  param: z.string().nullish(),
  content_type: z.string().optional(),
  content: z.string(),
});
export type AcpMessage = z.infer<typeof acpMessage>;

export const acpPaymentHandler = z.looseObject({
  id: z.string(),
  name: z.string(),
  psp: z.string().optional(),
  requires_delegate_payment: z.boolean().optional(),
  config: z.record(z.string(), z.unknown()).optional(),
});
export type AcpPaymentHandler = z.infer<typeof acpPaymentHandler>;

export const acpOrder = z.looseObject({
  id: z.string(),
  checkout_session_id: z.string().optional(),
  permalink_url: z.string().optional(),
  status: z.string().optional(),
});

export const acpCheckoutSession = z.looseObject({
  id: z.string(),
  status: z.string(),
  currency: z.string(),
  line_items: z.array(acpLineItem),
  totals: z.array(acpTotal),
  fulfillment_options: z.array(acpFulfillmentOption).default([]),
  selected_fulfillment_options: z.array(acpSelectedFulfillment).optional(),
  messages: z.array(acpMessage).default([]),
  capabilities: z.looseObject({ payment: z.looseObject({ handlers: z.array(acpPaymentHandler).default([]) }).optional() }).optional(),
  continue_url: z.string().optional(),
  expires_at: z.string().optional(),
  order: acpOrder.optional(),
});
export type AcpCheckoutSession = z.infer<typeof acpCheckoutSession>;

/** The flat error object every 4xx/5xx carries (`type`, `code`, `message`, `param`). */
export const acpError = z.looseObject({
  type: z.string(),
  code: z.string(),
  message: z.string(),
  param: z.string().optional(),
});
export type AcpError = z.infer<typeof acpError>;

/** ACP addresses (shipping, billing): `state` is the region, `line_one`/`line_two` the street lines. */
export interface AcpAddress {
  name: string;
  line_one: string;
  line_two?: string;
  city: string;
  state: string;
  country: string;
  postal_code: string;
}
