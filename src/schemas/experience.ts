import { z } from 'zod';
import { DECISION_EVENT_TYPES, type DecisionEventType } from '../db/schema-supply';
import { isoDateTime, NON_BLANK_PATTERN, text, trimmedTextPattern } from './common';

/** Experience commerce (docs/CONTRACT.md#decision-events). See docs/EXPERIENCE.md. */

const freeObject = z.record(z.string(), z.unknown());

export const REMIX_DIMENSIONS = ['scene', 'mood', 'lighting', 'palette', 'framing'] as const;
export type RemixDimension = (typeof REMIX_DIMENSIONS)[number];
/** The longest remix value, once trimmed. */
export const REMIX_VALUE_MAX = 200;
/** Events that only make sense about an offer (SLA reads fulfilled/late_delivery per proposal): they name one. */
export const EVENTS_NEEDING_PROPOSAL: readonly DecisionEventType[] = ['confirm', 'fulfilled', 'late_delivery'];

export const RemixableDimension = z
  .object({
    dimension: z.enum(REMIX_DIMENSIONS),
    current: z.string(),
    options: z.array(z.string()).meta({ description: 'Suggested values; any short text is accepted as a remix value.' }),
  })
  .meta({ id: 'RemixableDimension' });

export const ExperiencePreview = z
  .object({
    preview_id: z.string(),
    kind: z.enum(['generated', 'referenced']).meta({
      description:
        '`referenced` when the merchant supplied its own preview asset (kept verbatim in asset), else `generated` from the catalog image and the context.',
    }),
    asset: freeObject,
    scene_preview: z.object({
      scene: z.string().nullable(),
      mood: z.string().nullable(),
      lighting: z.string(),
      palette: z.string(),
      framing: z.string(),
      visual_constraints: z.array(z.string()),
      prompt: z.string().meta({ description: 'A render prompt composed from the dimensions above; nothing is rendered by the gateway.' }),
    }),
    remixable_dimensions: z.array(RemixableDimension),
    revision: z.number().int().meta({ description: '0 as submitted; each remix adds one.' }),
    remixed: z.object({ dimension: z.string(), from: z.string(), to: z.string() }).nullable(),
  })
  .meta({ id: 'ExperiencePreview' });

export const FIT_BASES = [
  'budget',
  'price_band',
  'scene',
  'desired_feeling',
  'self_context',
  'visual_constraints',
  'keywords',
  'creator_evidence',
  'region',
  'taste_category',
  'taste_brand',
  'inspiration',
] as const;

export const FitStatement = z
  .object({
    basis: z.enum(FIT_BASES),
    statement: z.string().meta({ description: 'One sentence built from `data` and nothing else.' }),
    data: freeObject.meta({ description: 'The numbers and words the statement was built from.' }),
  })
  .meta({ id: 'FitStatement' });

export const ExperienceProduct = z
  .object({
    product_id: z.number().int(),
    external_id: z.string().nullable().optional().meta({
      description:
        "The merchant's own id of the product (its feed id); null for a product that did not come from a feed. Absent from cards built before it was added.",
    }),
    title: z.string(),
    brand: z.string().nullable(),
    category_l1: z.string().nullable(),
    category_l2: z.string().nullable(),
    price: z.number().meta({ description: 'The offer price (proposal) or the catalog price (feed).' }),
    currency: z.string(),
    image: z.string().nullable(),
    region_allow: z.array(z.string()),
  })
  .meta({ id: 'ExperienceProduct' });

export const CreatorEvidence = z
  .object({
    task_id: z.string(),
    username: z.string(),
    display_name: z.string(),
    followers: z.number().int(),
    orders: z.number().int(),
    views: z.number().int(),
    gmv: z.number().meta({ description: 'USD.' }),
    conversion_score: z.number(),
    video_url: z.string().nullable(),
    thumbnail: z.string().nullable(),
  })
  .meta({ id: 'CreatorEvidence' });

const EventTemplate = z.object({
  event_type: z.string(),
  intent_id: z.string().nullable(),
  proposal_id: z.string().nullable(),
  product_id: z.number().int(),
  payload: freeObject,
});

export const ExperienceCard = z
  .object({
    experience_id: z.string(),
    intent_id: z.string().nullable(),
    proposal_id: z.string().nullable(),
    scene: z.object({
      scene: z.string().nullable(),
      self_context: z.string().nullable(),
      desired_feeling: z.string().nullable(),
      confirmation_goal: z.string().nullable(),
    }),
    preview: ExperiencePreview,
    products: z.array(ExperienceProduct),
    creator_evidence: z
      .array(CreatorEvidence)
      .meta({ description: 'Up to 3 videos of the product with orders, by conversion_score, then GMV.' }),
    why_it_fits_you: z
      .array(FitStatement)
      .meta({ description: 'Only what the product, offer, creator numbers, context or taste data support.' }),
    caveats: z.array(FitStatement).meta({ description: 'Facts that speak against the fit (over budget, region not served).' }),
    remix_actions: z.array(
      z
        .object({ dimension: z.enum(REMIX_DIMENSIONS), label: z.string(), options: z.array(z.string()), event: EventTemplate })
        .meta({ description: 'POST the event (with a value) to /v1/decision-events.' }),
    ),
    cta: z.object({
      primary: z.object({ label: z.string(), event: EventTemplate }),
      secondary: z.object({ label: z.string(), event: EventTemplate }),
    }),
    merchant_supplied: freeObject.nullable().meta({ description: 'The experience_card object the merchant submitted, kept verbatim.' }),
  })
  .meta({ id: 'ExperienceCard' });

export type ExperiencePreviewT = z.infer<typeof ExperiencePreview>;
export type ExperienceCardT = z.infer<typeof ExperienceCard>;
export type FitStatementT = z.infer<typeof FitStatement>;
export type CreatorEvidenceT = z.infer<typeof CreatorEvidence>;

export const DecisionEventBody = z
  .strictObject({
    // Required (a missing one is the route's missingFields), its value checked in the domain so that
    // a missing, unknown or non-string type is one error: unsupported_decision_event.
    event_type: z
      // Refusing undefined is what makes the document list it as required; the route's missingFields
      // answers its absence before this runs.
      .custom<unknown>((v) => v !== undefined)
      .meta({ type: 'string', enum: [...DECISION_EVENT_TYPES], description: 'Anything else, or none, is 400 unsupported_decision_event.' }),
    intent_id: text(100).optional(),
    proposal_id: text(100).optional(),
    match_token_id: text(100).optional(),
    product_id: z
      .number()
      .int()
      .positive()
      .max(2_147_483_647)
      .optional()
      .meta({ description: 'A catalog product without a proposal (experience feed items); derived from the proposal otherwise.' }),
    agent_id: text(200)
      .optional()
      .meta({ description: 'The shopper agent whose taste the event tells about; also accepted as payload.agent_id.' }),
    payload: freeObject.optional().meta({
      description:
        "remix needs dimension (one of the preview's remixable dimensions) and value (the new one, not the current one). agent_id, when given here, names the same agent as the body's agent_id.",
      properties: { agent_id: { type: 'string', maxLength: 200, pattern: NON_BLANK_PATTERN } },
    }),
  })
  .meta({
    id: 'DecisionEventRequest',
    // What each event type needs beside event_type (checked in src/experience/decision-events.ts),
    // stated as one branch per group of types. Not statable here, hence in the operation's description:
    // a remix value equal to the current one, and agent_id differing from payload.agent_id.
    anyOf: [
      { properties: { event_type: { enum: DECISION_EVENT_TYPES.filter((t) => !EVENTS_NEEDING_PROPOSAL.includes(t) && t !== 'remix') } } },
      {
        properties: { event_type: { enum: [...EVENTS_NEEDING_PROPOSAL] } },
        anyOf: [{ required: ['proposal_id'] }, { required: ['match_token_id'] }],
      },
      {
        properties: {
          event_type: { enum: ['remix'] },
          payload: {
            required: ['dimension', 'value'],
            properties: {
              dimension: { type: 'string', enum: [...REMIX_DIMENSIONS] },
              value: { type: 'string', pattern: trimmedTextPattern(REMIX_VALUE_MAX) },
            },
          },
        },
        required: ['payload'],
        anyOf: [{ required: ['proposal_id'] }, { required: ['match_token_id'] }, { required: ['product_id'] }],
      },
    ],
  });
export type DecisionEventInput = z.infer<typeof DecisionEventBody>;

export const DecisionEvent = z
  .object({
    feedback_id: z.string(),
    event_type: z.enum(DECISION_EVENT_TYPES),
    intent_id: z.string().nullable(),
    proposal_id: z.string().nullable(),
    match_token_id: z.string().nullable(),
    product_id: z.number().int().nullable(),
    merchant_id: z.string().nullable().meta({ description: 'The merchant of the proposal; what SLA and reputation read.' }),
    agent_id: z.string().nullable(),
    payload: freeObject,
    revised_experience_preview: ExperiencePreview.optional().meta({
      description: 'remix only: the preview after the remix (also stored in payload).',
    }),
    created_at: isoDateTime.nullable(),
  })
  .meta({ id: 'DecisionEvent' });
export type DecisionEventT = z.infer<typeof DecisionEvent>;
export const DecisionEventEnvelope = z.object({ decision_event: DecisionEvent }).meta({ id: 'DecisionEventEnvelope' });

export const TasteProfile = z
  .object({
    categories: z.array(text(100)).max(20).optional().meta({ description: 'Level-1 or level-2 catalog category names.' }),
    brands: z.array(text(100)).max(20).optional(),
    keywords: z.array(text(64)).max(20).optional(),
    price_band: z
      .strictObject({ min: z.number().min(0).max(1e7).optional(), max: z.number().positive().max(1e7).optional() })
      .refine((b) => b.min === undefined || b.max === undefined || b.min <= b.max, { message: 'min must not exceed max', path: ['min'] })
      .optional()
      .meta({
        description: 'USD. `min` must not exceed `max` (400 invalid_payload; a rule across two members, which the schema does not state).',
      }),
    avoid_categories: z.array(text(100)).max(20).optional(),
    avoid_brands: z.array(text(100)).max(20).optional(),
  })
  .catchall(z.unknown())
  .meta({ id: 'TasteProfileInput' });
export type TasteProfileInput = z.infer<typeof TasteProfile>;

export const InspirationRef = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('product'), product_id: z.number().int().positive().max(2_147_483_647) }).catchall(z.unknown()),
    z.object({ type: z.literal('creator'), username: text(100) }).catchall(z.unknown()),
    z.object({ type: z.literal('text'), text: text(500) }).catchall(z.unknown()),
  ])
  .meta({ id: 'InspirationRef' });
export type InspirationRefT = z.infer<typeof InspirationRef>;

export const FEED_DEFAULT_LIMIT = 6;

export const ExperienceFeedBody = z
  .strictObject({
    agent_id: text(200),
    taste_profile: TasteProfile.optional(),
    inspiration_refs: z.array(InspirationRef).max(20).optional(),
    limit: z.number().int().min(1).max(24).default(FEED_DEFAULT_LIMIT).meta({ description: 'Items, 1..24, default 6.' }),
  })
  .meta({ id: 'ExperienceFeedRequest' });
export type ExperienceFeedInput = z.infer<typeof ExperienceFeedBody>;

const Weighted = z.object({ name: z.string(), score: z.number(), events: z.number().int() });

export const ExperienceFeed = z
  .object({
    feed_id: z
      .string()
      .meta({ description: 'Content hash of the request and the item ids: the same input over the same events gives the same id.' }),
    agent_id: z.string(),
    taste_profile: z.object({
      derived: z.object({
        event_count: z
          .number()
          .int()
          .meta({ description: 'Taste events of the agent read (pick, confirm, purchase, nope, return, complaint).' }),
        categories: z.array(Weighted),
        brands: z.array(Weighted),
        price_band: z.object({ min: z.number(), max: z.number() }).nullable(),
        excluded_product_ids: z.array(z.number().int()).meta({ description: 'Products whose latest taste event is negative.' }),
      }),
      explicit: freeObject,
      effective: z.object({
        categories: z.array(z.string()),
        brands: z.array(z.string()),
        keywords: z.array(z.string()),
        price_band: z.object({ min: z.number().nullable(), max: z.number().nullable() }).nullable(),
        avoid_categories: z.array(z.string()),
        avoid_brands: z.array(z.string()),
      }),
    }),
    inspiration_refs: z.array(freeObject),
    items: z.array(ExperienceCard),
    generated_at: isoDateTime,
  })
  .meta({ id: 'ExperienceFeed' });
export type ExperienceFeedT = z.infer<typeof ExperienceFeed>;
export const ExperienceFeedEnvelope = z.object({ feed: ExperienceFeed }).meta({ id: 'ExperienceFeedEnvelope' });
