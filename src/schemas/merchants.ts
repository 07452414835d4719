import { z } from 'zod';
import { isoDateTime, pathId, text, token } from './common';

/**
 * Merchant agent (legacy registry, docs/REGISTRIES.md). The three profile objects have typed members so the
 * readiness score is computed from facts, not free text; their member lists are written in
 * docs/REGISTRIES.md. Members are optional (a merchant fills them in as it upgrades) but unknown
 * members are refused, so a typo cannot silently cost readiness points.
 */

const shortText = text(200);
const tag = text(64);
const tagList = (max = 50) => z.array(tag).max(max);
const freeObject = z.record(z.string(), z.unknown());

/** The merchant's protocol (docs/MERCHANTS.md): the gateway's own webhooks, a UCP business, an ACP seller. */
export const MERCHANT_PROTOCOLS = ['gateway', 'ucp', 'acp'] as const;
export type MerchantProtocol = (typeof MERCHANT_PROTOCOLS)[number];
export const CHECKOUT_MODES = ['match_token_checkout', 'agentic_checkout', 'payment_authorization', 'merchant_redirect'] as const;
export const PROPOSAL_CONTRACTS = ['committed', 'indicative', 'none'] as const;
export const ATTRIBUTION_MODES = ['match_token', 'rec_id', 'utm', 'none'] as const;
export const DESTINATION_STRATEGIES = ['embedded_workflow', 'agent_checkout', 'merchant_site', 'deep_link'] as const;
export const CONTRADICTION_HANDLING = ['flag', 'exclude', 'escalate', 'ignore'] as const;

export const WorkflowContext = z
  .object({
    origin_workflow: shortText
      .optional()
      .meta({ description: 'The workflow the agent lives in, e.g. `shopify_checkout` or `concierge_chat`.' }),
    accepted_intent_shapes: tagList(20)
      .optional()
      .meta({ description: 'Intent shapes it answers, e.g. `product_search`, `bundle`, `replenishment`.' }),
    required_context: tagList(20)
      .optional()
      .meta({ description: 'Intent fields it needs before it can quote, e.g. `budget`, `region`, `size`.' }),
    proposal_response_sla_seconds: z.number().int().min(1).max(86_400).optional(),
    checkout_modes: z.array(z.enum(CHECKOUT_MODES)).max(CHECKOUT_MODES.length).optional(),
  })
  .strict()
  .meta({ id: 'WorkflowContext' });

export const TrustEvidencePolicy = z
  .object({
    community_proof_required: z.boolean().optional(),
    accepted_sources: tagList(20)
      .optional()
      .meta({ description: 'Evidence sources it accepts, e.g. `community`, `reddit`, `verified_reviews`.' }),
    min_consensus_score: z.number().min(0).max(1).optional(),
    contradiction_handling: z.enum(CONTRADICTION_HANDLING).optional(),
  })
  .strict()
  .meta({ id: 'TrustEvidencePolicy' });

export const AgentReadyProfile = z
  .object({
    destination_strategy: z.enum(DESTINATION_STRATEGIES).optional(),
    proposal_contract: z
      .enum(PROPOSAL_CONTRACTS)
      .optional()
      .meta({ description: '`committed`: a proposal is a binding quote until valid_until.' }),
    attribution_mode: z
      .enum(ATTRIBUTION_MODES)
      .optional()
      .meta({ description: '`match_token`: orders are attributed through the signed match token.' }),
  })
  .strict()
  .meta({ id: 'AgentReadyProfile' });

const InventoryScope = z
  .object({
    category: tag.optional(),
    region: tag.optional(),
    sku_count: z.number().int().min(0).max(1_000_000_000).optional(),
    in_stock_only: z.boolean().optional(),
  })
  .catchall(z.unknown());

export const rotateToken = z
  .boolean()
  .optional()
  .meta({ description: 'On an update: issue a new registration_token; the one sent in the header stops working at once.' });

export const MerchantRegisterBody = z
  .strictObject({
    merchant_id: token('[A-Za-z0-9._:-]{1,128}', 'letters, digits and . _ : - only, 1 to 128 of them'),
    agent_endpoint: z
      .string()
      .trim()
      .max(2048)
      .url()
      .meta({ description: 'HTTPS webhook URL of the merchant agent (Intent.Surge deliveries go here).' }),
    subscription_tags: tagList(100).optional(),
    capabilities: tagList(50).optional(),
    regions: tagList(50).optional(),
    category_tags: tagList(100).optional(),
    inventory_scope: z.array(InventoryScope).max(100).optional(),
    protocol_version: z.enum(MERCHANT_PROTOCOLS).optional().meta({
      description:
        "How the gateway reaches the merchant (default `gateway`). `gateway`: agent_endpoint takes the gateway's webhooks (Intent.Surge, runtime queries, checkout handoffs). `ucp`: agent_endpoint is a UCP business's base URL; the gateway reads `{agent_endpoint}/.well-known/ucp` at registration (versions 2026-04-08 and 2026-01-11; another answers 422 `ucp_version_unsupported`, an unreadable profile 422 `ucp_discovery_failed`) and buys through its checkout sessions. `acp`: agent_endpoint is an ACP seller's API base URL (API-Version 2026-04-17), with `seller_credential`.",
    }),
    seller_credential: text(4096).optional().meta({
      description:
        'acp: the credential the seller issued to agents (sent as `Authorization: Bearer`). Stored sealed like the webhook secret and never shown; absent on an update keeps the stored one.',
    }),
    a2a_capabilities: freeObject.optional(),
    metadata: freeObject.optional(),
    workflow_context: WorkflowContext.optional(),
    trust_evidence_policy: TrustEvidencePolicy.optional(),
    agent_ready_profile: AgentReadyProfile.optional(),
    rotate_registration_token: rotateToken,
    rotate_webhook_secret: z
      .boolean()
      .optional()
      .meta({ description: 'On an update: issue a new webhook_secret (the old one stops signing at once).' }),
  })
  .meta({ id: 'MerchantRegisterRequest' });
export type MerchantRegisterInput = z.infer<typeof MerchantRegisterBody>;

export const MerchantIdParams = z.object({ merchantId: pathId(128) });
export const MerchantHeartbeatBody = z.strictObject({ merchant_id: text(128) }).meta({ id: 'MerchantHeartbeatRequest' });

export const Merchant = z
  .object({
    merchant_id: z.string(),
    agent_endpoint: z.string(),
    subscription_tags: z.array(z.string()),
    capabilities: z.array(z.string()),
    regions: z.array(z.string()),
    category_tags: z.array(z.string()),
    inventory_scope: z.array(freeObject),
    protocol_version: z.enum(MERCHANT_PROTOCOLS).meta({ description: '`gateway`, `ucp` or `acp` (see the register request).' }),
    protocol_profile: freeObject.nullable().meta({
      description:
        'ucp: what discovery found at `{agent_endpoint}/.well-known/ucp` (negotiated `version`, `rest_endpoint`, services, capabilities, payment handlers, whether it offers catalog search), refreshed when older than an hour; null for other protocols.',
    }),
    protocol_profile_fetched_at: isoDateTime.nullable(),
    has_seller_credential: z.boolean().meta({ description: 'acp: a seller credential is stored (its value is never shown).' }),
    sells_only_by_redirect: z.boolean().meta({
      description:
        '`workflow_context.checkout_modes` lists only `merchant_redirect`: the merchant sells on its own product pages; the gateway sends it no deliveries, queries or orders and authorizes no payment for it.',
    }),
    a2a_capabilities: freeObject,
    metadata: freeObject,
    status: z.enum(['active', 'inactive']),
    registered_at: isoDateTime.nullable(),
    last_seen_at: isoDateTime.nullable(),
    deactivated_at: isoDateTime.nullable(),
    workflow_context: WorkflowContext,
    trust_evidence_policy: TrustEvidencePolicy,
    agent_ready_profile: AgentReadyProfile,
  })
  .meta({ id: 'Merchant' });

export const MerchantRegisterResponse = z
  .object({
    status: z.string(),
    created: z.boolean(),
    merchant_id: z.string(),
    registration_token: z.string().meta({ description: 'Secret for X-Merchant-Token. Returned only here.' }),
    webhook_secret: z.string().meta({ description: '`whsec_…` secret that signs Intent.Surge deliveries (Standard Webhooks).' }),
    merchant: Merchant,
  })
  .meta({ id: 'MerchantRegisterResponse' });

export const MerchantEnvelope = z.object({ status: z.string().optional(), merchant: Merchant }).meta({ id: 'MerchantEnvelope' });

export const HEALTH_REASONS = ['unreachable', 'timeout', 'bad_status', 'inactive', 'unsafe_endpoint'] as const;

export const MerchantHealth = z
  .object({
    merchant_id: z.string(),
    status: z.literal('healthy'),
    latency_ms: z.number().int(),
    http_status: z.number().int(),
    checked_at: isoDateTime,
  })
  .meta({ id: 'MerchantHealth' });

export const MerchantUnhealthy = z
  .object({
    error: z.literal('merchant_unhealthy'),
    message: z.string(),
    merchant_id: z.string(),
    status: z.literal('unhealthy'),
    reason: z.enum(HEALTH_REASONS),
    latency_ms: z.number().int().nullable(),
    http_status: z.number().int().nullable(),
    checked_at: isoDateTime,
  })
  .meta({ id: 'MerchantUnhealthy' });

const ReadinessCheck = z.object({
  passed: z.boolean(),
  points: z.number().int(),
  max_points: z.number().int(),
  reason: z.string(),
});

export const AgentReadiness = z
  .object({
    kind: z.literal('merchant_agent_readiness'),
    merchant_id: z.string(),
    score: z.number().int().min(0).max(100),
    summary: z.object({ ready_for_embedded_workflows: z.boolean(), insight: z.string(), next_upgrade: z.string() }),
    checks: z.object({
      workflow_context: ReadinessCheck,
      committed_proposal_contract: ReadinessCheck,
      trust_evidence_policy: ReadinessCheck,
      match_token_attribution: ReadinessCheck,
    }),
    merchant: Merchant,
  })
  .meta({ id: 'AgentReadiness' });
