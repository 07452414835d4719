import { z } from 'zod';
import { atLeastOneMinorUnit, isoDateTime, money, text } from './common';
import { AssetRef, AttributionLink, currencyCode, Workflow } from './intents';

/**
 * Proposal (docs/MATCHING.md). The objects that ranking reads (shipping, commission, evidence)
 * have typed members; all keep unknown members for the merchant's own use.
 */

const freeObject = z.record(z.string(), z.unknown());

export const INVENTORY_STATUSES = ['in_stock', 'low_stock', 'preorder', 'out_of_stock', 'unknown'] as const;

export const ShippingCommitment = z
  .object({
    min_days: z.number().int().min(0).max(365).optional(),
    max_days: z.number().int().min(0).max(365).optional(),
    cost: z.number().min(0).max(1e6).optional(),
    free: z.boolean().optional(),
    carrier: text(100).optional(),
    regions: z
      .array(z.string().regex(/^[A-Z]{2}$/))
      .max(250)
      .optional(),
  })
  .catchall(z.unknown())
  .refine((s) => s.min_days === undefined || s.max_days === undefined || s.min_days <= s.max_days, {
    message: 'min_days must not exceed max_days',
    path: ['min_days'],
  })
  .meta({
    id: 'ShippingCommitment',
    description: '`min_days` must not exceed `max_days` (400 invalid_payload; a rule across two members, which the schema does not state).',
  });

export const CommissionPlan = z
  .object({
    model: z.enum(['cps', 'cpa', 'flat']).optional(),
    rate: z.number().min(0).max(1).optional().meta({ description: 'Share of the sale, 0..1.' }),
    flat: z.number().min(0).max(1e6).optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'CommissionPlan' });

export const Evidence = z
  .object({
    type: text(100).meta({ description: 'e.g. review, community_post, certification, test_report' }),
    source: text(200).optional(),
    url: z.string().url().max(2048).optional(),
    summary: text(2000).optional(),
    score: z.number().min(0).max(1).optional(),
  })
  .catchall(z.unknown());

/** The members that name a proposal's product: exactly one of them (docs/MATCHING.md, "Naming the product"). */
export const PRODUCT_REF_MEMBERS = ['product_id', 'external_id', 'variant_id'] as const;

/**
 * A product named twice (two of PRODUCT_REF_MEMBERS) is an issue on each member given; with
 * `required`, a product not named at all is one on product_id. A rule across members, which the
 * document states as a oneOf of `required`. POST /v1/proposals leaves the absent case to the domain
 * (400 missing_fields, as any missing member); a merchant's runtime answer has it in its schema.
 */
export const oneProductRef =
  (required: boolean) =>
  (value: { product_id?: unknown; external_id?: unknown; variant_id?: unknown }, ctx: z.RefinementCtx): void => {
    const given = PRODUCT_REF_MEMBERS.filter((k) => value[k] !== undefined);
    if (given.length > 1) {
      for (const k of given) ctx.addIssue({ code: 'custom', path: [k], message: `name the product by only one of ${given.join(', ')}` });
    } else if (required && !given.length) {
      ctx.addIssue({ code: 'custom', path: ['product_id'], message: 'name the product by one of product_id, external_id or variant_id' });
    }
  };

export const ProposalCreateBody = z
  .strictObject({
    merchant_agent_id: text(128),
    intent_id: text(100),
    product_id: z
      .number()
      .int()
      .positive()
      .max(2_147_483_647)
      .optional()
      .meta({ description: "The gateway's catalog id of the product (any product of the catalog)." }),
    external_id: text(128).optional().meta({
      description:
        "The merchant's own id of the product instead: its feed `id`, or the id grouping its variant rows (as GET /v1/merchant/{merchantId}/products lists it). Only merchant_agent_id's own products; another merchant's id is 404 product_not_found.",
    }),
    variant_id: text(128).optional().meta({
      description:
        "Or the feed id or SKU of one of the merchant's variants (or the feed id of a product without variants): names the product that lists it, kept in product_snapshot.variant_id. Only merchant_agent_id's own products.",
    }),
    offer_title: text(300),
    price: money(1e7, 'The offer price in major units of currency.'),
    currency: currencyCode.default('USD'),
    valid_until: z.iso.datetime({ offset: true }).optional(),
    proposal_state: z
      .enum(['draft', 'quoted'])
      .default('quoted')
      .meta({ description: 'Submit as a draft (not ranked) or as a quote (default).' }),
    inventory_status: z.enum(INVENTORY_STATUSES).optional().meta({ description: 'Defaults from the catalog stock.' }),
    shipping_commitment: ShippingCommitment.optional(),
    commission_plan: CommissionPlan.optional(),
    service_terms: freeObject.optional(),
    evidence: z.array(Evidence).max(50).optional(),
    proposal_score_inputs: freeObject.optional(),
    metadata: freeObject.optional(),
    provenance: text(100).optional(),
    asset_refs: z.array(AssetRef).max(50).optional(),
    attribution_chain: z.array(AttributionLink).max(50).optional(),
    workflow: Workflow.optional(),
    experience_preview: freeObject.optional().meta({
      description: "The merchant's own preview asset (e.g. {type, url}); kept verbatim as the asset of a referenced experience_preview.",
    }),
    experience_card: freeObject
      .optional()
      .meta({ description: 'Kept verbatim in experience_card.merchant_supplied; the card itself is built by the gateway.' }),
  })
  .superRefine(atLeastOneMinorUnit('price'))
  .superRefine(oneProductRef(false))
  .meta({
    id: 'ProposalCreateRequest',
    description:
      'Exactly one of product_id, external_id and variant_id names the product (none: 400 missing_fields; more than one: 400 invalid_payload).',
    oneOf: PRODUCT_REF_MEMBERS.map((k) => ({ required: [k] })),
  });
export type ProposalCreateInput = z.infer<typeof ProposalCreateBody>;

export const Proposal = z
  .object({
    proposal_id: z.string(),
    merchant_agent_id: z.string(),
    intent_id: z.string(),
    product_id: z.number().int(),
    offer_title: z.string(),
    price: z.number().nullable(),
    currency: z.string(),
    inventory_status: z.string(),
    shipping_commitment: freeObject,
    commission_plan: freeObject,
    service_terms: freeObject,
    evidence: z.array(freeObject),
    valid_until: isoDateTime.nullable(),
    proposal_score_inputs: freeObject,
    product_snapshot: freeObject.nullable(),
    metadata: freeObject,
    provenance: z.string(),
    status: z.enum(['active', 'withdrawn', 'expired']),
    created_at: isoDateTime.nullable(),
    updated_at: isoDateTime.nullable(),
    asset_refs: z.array(freeObject),
    trust_score: freeObject,
    attribution_chain: z.array(freeObject),
    proposal_state: z.enum(['draft', 'quoted', 'pending_confirmation', 'accepted', 'settled', 'expired']),
    workflow: freeObject,
    experience_preview: freeObject.meta({
      description: 'ExperiencePreview built at submission (empty for catalog proposals of GET /v1/recommend).',
    }),
    experience_card: freeObject.meta({
      description:
        'ExperienceCard built at submission from the product, its creator evidence and the intent (empty for catalog proposals of GET /v1/recommend).',
    }),
  })
  .meta({ id: 'Proposal' });

export const ProposalEnvelope = z.object({ proposal: Proposal }).meta({ id: 'ProposalEnvelope' });
export const ProposalWarning = z
  .object({
    code: z
      .enum(['product_category_mismatch'])
      .meta({ description: 'product_category_mismatch: the product is not in a category the intent names.' }),
    message: z.string(),
    product_category: z.string().nullable(),
    intent_categories: z.array(z.string()),
  })
  .meta({ id: 'ProposalWarning' });
export const ProposalCreated = z
  .object({
    proposal: Proposal,
    warnings: z
      .array(ProposalWarning)
      .meta({ description: 'What the merchant should check; the proposal is stored and ranked regardless. Empty when nothing looks off.' }),
  })
  .meta({ id: 'ProposalCreated' });
export const ProposalList = z
  .object({ intent_id: z.string(), count: z.number().int(), proposals: z.array(Proposal) })
  .meta({ id: 'ProposalList' });
export const ProposalIdParams = z.object({ proposalId: z.string().min(1).max(100) });
export const ProposalListQuery = z.object({
  include_expired: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
});
