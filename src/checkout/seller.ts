import { createHash } from 'node:crypto';
import type { Db } from '../db/connect';
import type { CheckoutMode } from '../db/schema-checkout';
import type { ProposalRow } from '../matching/proposals';
import { isAgentEndpoint } from '../catalog/products';
import type { MerchantRow } from '../db/schema';
import type { MerchantProtocol } from '../schemas/merchants';
import { merchantProtocolOf, sellsThroughSessions, takesGatewayWebhooks } from '../registry/merchant-protocol';
import { issueCards, matchRecId } from '../recommend/issued-cards';

/**
 * Who sells a proposal's product, and how a checkout of it completes (docs/CHECKOUT.md, "Modes").
 * This is the only place that answers those two questions: a catalog whose products name their own
 * merchant changes `checkoutSeller`, and nothing else in the checkout does.
 */

export interface CheckoutSeller {
  merchant_id: string;
  /** Where the order is handed to; null when the seller takes no orders from the gateway. */
  agent_endpoint: string | null;
  /** How the order is handed over: the gateway's webhook, or a UCP/ACP checkout session. */
  protocol: MerchantProtocol;
}

export { isAgentEndpoint };

/** The merchants columns the answer depends on. */
export type SellerFacts = Pick<MerchantRow, 'agent_endpoint' | 'protocol_version' | 'workflow_context'>;

/**
 * The seller of a proposal: today the merchant the proposal is filed under (catalog proposals: the
 * catalog merchant). It takes the order when it is an agent (a gateway agent, a UCP business, an ACP
 * seller at a real endpoint) that does not sell only by redirect (src/registry/merchant-protocol.ts).
 */
export async function checkoutSeller(
  db: Db,
  proposal: Pick<ProposalRow, 'merchant_agent_id' | 'product_id' | 'provenance'>,
): Promise<CheckoutSeller> {
  const merchant = await db
    .selectFrom('merchants')
    .select(['agent_endpoint', 'protocol_version', 'workflow_context'])
    .where('merchant_id', '=', proposal.merchant_agent_id)
    .executeTakeFirst();
  return checkoutSellerFrom(proposal, merchant);
}

/**
 * The same answer from a merchants row the caller read already (the plan reads it with the proposal,
 * one statement): `merchant` is the row of `proposal.merchant_agent_id`, or undefined when there is none.
 */
export function checkoutSellerFrom(proposal: Pick<ProposalRow, 'merchant_agent_id'>, merchant: SellerFacts | undefined): CheckoutSeller {
  const protocol = merchant ? merchantProtocolOf(merchant) : 'gateway';
  const takesOrders = merchant !== undefined && (takesGatewayWebhooks(merchant) || sellsThroughSessions(merchant));
  return { merchant_id: proposal.merchant_agent_id, agent_endpoint: takesOrders ? merchant.agent_endpoint : null, protocol };
}

/** A seller that takes orders gets them handed off (and the gateway authorizes payment); any other sells on its own page. */
export const checkoutModeOf = (seller: CheckoutSeller): CheckoutMode => (seller.agent_endpoint ? 'agent_handoff' : 'merchant_redirect');

/**
 * The rec_id a merchant_redirect checkout sends the buyer through, so the merchant's order is
 * attributed by the rules for rec ids: the card the proposal came with (GET /v1/recommend files its
 * card's rec_id in the proposal's metadata), else the card the token's match session issued for the
 * product, else a card issued now under an id derived from the checkout (a retried plan issues none twice).
 */
export async function redirectRecId(
  db: Db,
  args: {
    checkoutId: string;
    proposal: Pick<ProposalRow, 'product_id' | 'metadata'>;
    matchSessionId: string | null;
    publicBaseUrl: string;
  },
): Promise<string> {
  const candidates: string[] = [];
  const fromProposal = (args.proposal.metadata as Record<string, unknown> | null)?.rec_id;
  if (typeof fromProposal === 'string' && fromProposal) candidates.push(fromProposal);
  if (args.matchSessionId) candidates.push(matchRecId(args.matchSessionId)(args.proposal.product_id));
  if (candidates.length) {
    const rows = await db.selectFrom('rec_cards').select(['rec_id', 'product_id']).where('rec_id', 'in', candidates).execute();
    for (const id of candidates) if (rows.some((r) => r.rec_id === id && r.product_id === args.proposal.product_id)) return id;
  }
  const recId = `rec_${createHash('sha256').update(`checkout:${args.checkoutId}`).digest('base64url').slice(0, 22)}`;
  await issueCards(db, [args.proposal.product_id], {
    publicBaseUrl: args.publicBaseUrl,
    channel: 'agentic_checkout',
    source: 'checkout',
    recIdFor: () => recId,
  });
  return recId;
}

/** The link the buyer continues on: the click redirect (recorded, then on to the product page with the rec_id). */
export const continueUrl = (publicBaseUrl: string, recId: string) => `${publicBaseUrl}/r/${encodeURIComponent(recId)}`;
