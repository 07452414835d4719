import type { Db } from '../db/connect';
import type { ProductRow } from '../db/schema-catalog';
import type { IntentRow } from '../matching/intents';
import type { CreatorEvidenceT, ExperienceCardT, ExperiencePreviewT } from '../schemas/experience';
import { buildExperienceCard, type IntentFacts, type OfferFacts } from './card';
import { loadCreatorEvidence } from './facts';
import { readContext } from './preview';

export function intentFacts(i: IntentRow): IntentFacts {
  return {
    intent_id: i.intent_id,
    budget_min_cents: i.budget_min_cents,
    budget_max_cents: i.budget_max_cents,
    budget_currency: i.budget_currency,
    region: i.region,
    intent_tags: i.intent_tags,
    context: readContext(i.experience_context),
  };
}

/** The experience objects of a proposal being submitted: one extra query (the product's creator videos). */
export async function proposalExperience(
  db: Db,
  intent: IntentRow,
  product: ProductRow,
  offer: OfferFacts,
): Promise<{ experience_preview: ExperiencePreviewT; experience_card: ExperienceCardT }> {
  const evidence = (await loadCreatorEvidence(db, [product.product_id])).get(product.product_id) ?? [];
  return proposalExperienceOf(intent, product, offer, evidence);
}

/** The same from the product's creator videos already read (several proposals' in one query: loadCreatorEvidence). */
export function proposalExperienceOf(
  intent: IntentRow,
  product: ProductRow,
  offer: OfferFacts,
  evidence: CreatorEvidenceT[],
): { experience_preview: ExperiencePreviewT; experience_card: ExperienceCardT } {
  const card = buildExperienceCard({ product, evidence, intent: intentFacts(intent), offer });
  return { experience_preview: card.preview, experience_card: card };
}
