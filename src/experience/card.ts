import type { ProductRow } from '../db/schema-catalog';
import {
  REMIX_DIMENSIONS,
  type CreatorEvidenceT,
  type ExperienceCardT,
  type ExperiencePreviewT,
  type FitStatementT,
} from '../schemas/experience';
import { fromMinorUnits } from '../money';
import { contentId } from './content-id';
import { budgetFit, evidenceFit, regionFit, wordFit, type BudgetFacts, type Fit } from './fit';
import { buildPreview, type ExperienceContextFacts } from './preview';

export type CardProduct = Pick<
  ProductRow,
  | 'product_id'
  | 'external_id'
  | 'title'
  | 'brand'
  | 'category_l1'
  | 'category_l2'
  | 'price_cents'
  | 'currency'
  | 'main_image'
  | 'region_allow'
  | 'tags'
>;

/** What an intent contributes to a card: its context, budget, region and keywords. */
export interface IntentFacts extends BudgetFacts {
  intent_id: string;
  region: string | null;
  intent_tags: string[];
  context: ExperienceContextFacts;
}

/** A merchant's offer: its price and whatever experience objects it submitted. */
export interface OfferFacts {
  proposal_id: string;
  price_cents: number;
  currency: string;
  merchant_preview?: Record<string, unknown>;
  merchant_card?: Record<string, unknown>;
}

export interface CardInput {
  product: CardProduct;
  evidence: CreatorEvidenceT[];
  intent?: IntentFacts;
  offer?: OfferFacts;
  /** Words to find in the product (default: the intent's tags). */
  keywords?: string[];
  /** Statements the caller derived from its own data (the feed's taste fit). */
  extraFits?: FitStatementT[];
  extraCaveats?: FitStatementT[];
  preview?: ExperiencePreviewT;
}

/**
 * The experience card (docs/EXPERIENCE.md). The same input always gives the same card (ids are content hashes), so a
 * feed can be reproduced and a stored card compared with a rebuilt one.
 */
export function buildExperienceCard(input: CardInput): ExperienceCardT {
  const { product, evidence, intent, offer } = input;
  const ctx = intent?.context ?? {};
  const priceCents = offer?.price_cents ?? product.price_cents;
  const currency = offer?.currency ?? product.currency;
  const preview = input.preview ?? buildPreview(product, ctx, offer?.merchant_preview);

  const fit: Fit = { fits: [], caveats: [] };
  if (intent) {
    budgetFit(priceCents, currency, intent, fit);
    regionFit(product, intent.region, fit);
  }
  wordFit(product, ctx, input.keywords ?? intent?.intent_tags ?? [], fit);
  fit.fits.push(...(input.extraFits ?? []));
  fit.caveats.push(...(input.extraCaveats ?? []));
  evidenceFit(evidence, fit);

  const intentId = intent?.intent_id ?? null;
  const proposalId = offer?.proposal_id ?? null;
  const event = (event_type: string, payload: Record<string, unknown> = {}) => ({
    event_type,
    intent_id: intentId,
    proposal_id: proposalId,
    product_id: product.product_id,
    payload,
  });
  return {
    experience_id: contentId('exp', { intent_id: intentId, proposal_id: proposalId, product_id: product.product_id }),
    intent_id: intentId,
    proposal_id: proposalId,
    scene: {
      scene: ctx.scene ?? null,
      self_context: ctx.self_context ?? null,
      desired_feeling: ctx.desired_feeling ?? null,
      confirmation_goal: ctx.confirmation_goal ?? null,
    },
    preview,
    products: [
      {
        product_id: product.product_id,
        external_id: product.external_id,
        title: product.title,
        brand: product.brand,
        category_l1: product.category_l1,
        category_l2: product.category_l2,
        price: fromMinorUnits(priceCents, currency),
        currency,
        image: product.main_image,
        region_allow: product.region_allow,
      },
    ],
    creator_evidence: evidence,
    why_it_fits_you: fit.fits,
    caveats: fit.caveats,
    remix_actions: REMIX_DIMENSIONS.map((dimension) => {
      const current = preview.remixable_dimensions.find((d) => d.dimension === dimension);
      return {
        dimension,
        label: `Change the ${dimension}`,
        options: (current?.options ?? []).filter((o) => o !== current?.current),
        event: event('remix', { dimension, value: null }),
      };
    }),
    cta: proposalId
      ? {
          primary: { label: ctx.confirmation_goal ? `Confirm: ${ctx.confirmation_goal}` : 'Confirm this offer', event: event('confirm') },
          secondary: { label: 'Not for me', event: event('nope') },
        }
      : { primary: { label: 'Pick this', event: event('pick') }, secondary: { label: 'Not for me', event: event('nope') } },
    merchant_supplied: offer?.merchant_card && Object.keys(offer.merchant_card).length ? offer.merchant_card : null,
  };
}
