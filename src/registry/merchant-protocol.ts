import { sql, type SqlBool, type Expression } from 'kysely';
import type { MerchantRow } from '../db/schema';
import { isAgentEndpoint } from '../catalog/products';
import type { MerchantProtocol } from '../schemas/merchants';
import { MERCHANT_PROTOCOLS } from '../schemas/merchants';

/**
 * How the gateway may reach a merchant (docs/MERCHANTS.md): the one place that reads a merchant's
 * protocol and checkout modes. Four kinds of merchant:
 * - a **gateway agent** (`protocol_version: "gateway"`, the default): takes Intent.Surge deliveries,
 *   answers the commerce runtime's queries and checkout handoffs at `agent_endpoint`;
 * - a **UCP business** (`"ucp"`): `agent_endpoint` is its base URL; the gateway buys through its
 *   checkout sessions and asks its catalog search when the profile declares one;
 * - an **ACP seller** (`"acp"`): `agent_endpoint` is its ACP base URL; the gateway buys through its
 *   `/checkout_sessions`;
 * - a **redirect-only shop**: whatever its protocol, `workflow_context.checkout_modes` lists only
 *   `merchant_redirect`: it sells on its own product pages, and the gateway never POSTs it anything
 *   (no deliveries, no queries, no orders) nor authorizes money for it. Its imported catalog
 *   represents it.
 */

type ProtocolFacts = Pick<MerchantRow, 'protocol_version' | 'workflow_context' | 'agent_endpoint'> & {
  protocol_profile?: MerchantRow['protocol_profile'];
};

export const merchantProtocolOf = (m: Pick<MerchantRow, 'protocol_version'>): MerchantProtocol =>
  (MERCHANT_PROTOCOLS as readonly string[]).includes(m.protocol_version) ? m.protocol_version : 'gateway';

/** Lists checkout modes, and every one of them is `merchant_redirect`. */
export function sellsOnlyByRedirect(m: Pick<MerchantRow, 'workflow_context'>): boolean {
  const modes = m.workflow_context?.checkout_modes ?? [];
  return modes.length > 0 && modes.every((mode) => mode === 'merchant_redirect');
}

/** Takes the gateway's own webhooks (deliveries, queries, handoffs) at a real agent endpoint. */
export const takesGatewayWebhooks = (m: ProtocolFacts): boolean =>
  merchantProtocolOf(m) === 'gateway' && !sellsOnlyByRedirect(m) && isAgentEndpoint(m.agent_endpoint);

/** A UCP business whose discovered profile declares catalog search. */
export const searchesUcpCatalog = (m: ProtocolFacts): boolean =>
  merchantProtocolOf(m) === 'ucp' &&
  !sellsOnlyByRedirect(m) &&
  (m.protocol_profile as { catalog_search?: unknown } | null)?.catalog_search === true;

/** Answers the commerce runtime's merchant query: a gateway agent, or a UCP business with catalog search. */
export const answersQueries = (m: ProtocolFacts): boolean => takesGatewayWebhooks(m) || searchesUcpCatalog(m);

/** Takes orders through a protocol checkout session (and the gateway authorizes payment for them). */
export const sellsThroughSessions = (m: ProtocolFacts): m is ProtocolFacts & { protocol_version: 'ucp' | 'acp' } =>
  merchantProtocolOf(m) !== 'gateway' && !sellsOnlyByRedirect(m) && isAgentEndpoint(m.agent_endpoint);

/**
 * Takes Intent.Surge deliveries, in SQL over a `merchants` row: a gateway agent that is not
 * redirect-only. (An endpoint that cannot be reached is the delivery's retries' and the dead-letter
 * queue's to report, as for any agent.)
 */
export const takesDeliveriesSql = (): Expression<SqlBool> =>
  sql<SqlBool>`(protocol_version = 'gateway'
    and not (jsonb_array_length(coalesce(workflow_context->'checkout_modes', '[]'::jsonb)) > 0
             and not exists (select 1 from jsonb_array_elements_text(workflow_context->'checkout_modes') as mode(m) where m <> 'merchant_redirect')))`;
