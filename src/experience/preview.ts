import type { ProductRow } from '../db/schema-catalog';
import { AppError } from '../errors';
import { REMIX_DIMENSIONS, REMIX_VALUE_MAX, type ExperiencePreviewT, type RemixDimension } from '../schemas/experience';
import { contentId } from './content-id';

/** The shopper's experience_context as stored on the intent (all members optional, extra keys kept). */
export interface ExperienceContextFacts {
  scene?: string;
  self_context?: string;
  desired_feeling?: string;
  visual_constraints?: string[];
  confirmation_goal?: string;
}

/** Suggested values per dimension; the context's own value (when it has one) is offered first. */
const OPTIONS: Record<RemixDimension, string[]> = {
  scene: ['neutral studio', 'at home', 'outdoors', 'on the go', 'gift unboxing'],
  mood: ['calm', 'energetic', 'cozy', 'confident', 'playful'],
  lighting: ['natural daylight', 'golden hour', 'soft studio', 'warm evening'],
  palette: ['true to product', 'muted', 'bright', 'monochrome', 'pastel'],
  framing: ['product hero', 'in use', 'close-up detail', 'flat lay', 'lifestyle wide'],
};

export function readContext(raw: unknown): ExperienceContextFacts {
  const o = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  return {
    scene: str(o.scene),
    self_context: str(o.self_context),
    desired_feeling: str(o.desired_feeling),
    visual_constraints: Array.isArray(o.visual_constraints)
      ? o.visual_constraints.filter((v): v is string => typeof v === 'string' && v.trim() !== '')
      : undefined,
    confirmation_goal: str(o.confirmation_goal),
  };
}

type Dimensions = Record<RemixDimension, string>;

function prompt(product: Pick<ProductRow, 'title' | 'brand'>, d: Dimensions, constraints: string[]): string {
  const by = product.brand ? ` by ${product.brand}` : '';
  const rules = constraints.length ? `; constraints: ${constraints.join(', ')}` : '';
  return `${product.title}${by}, ${d.framing}, ${d.scene}, ${d.mood} mood, ${d.lighting}, ${d.palette} palette${rules}.`;
}

function assemble(
  product: Pick<ProductRow, 'product_id' | 'title' | 'brand'>,
  kind: ExperiencePreviewT['kind'],
  asset: Record<string, unknown>,
  d: Dimensions,
  constraints: string[],
  revision: number,
  remixed: ExperiencePreviewT['remixed'],
  options: Record<RemixDimension, string[]>,
): ExperiencePreviewT {
  const body = {
    kind,
    asset,
    scene_preview: {
      scene: d.scene,
      mood: d.mood,
      lighting: d.lighting,
      palette: d.palette,
      framing: d.framing,
      visual_constraints: constraints,
      prompt: prompt(product, d, constraints),
    },
    remixable_dimensions: REMIX_DIMENSIONS.map((dimension) => ({ dimension, current: d[dimension], options: options[dimension] })),
    revision,
    remixed,
  };
  return { preview_id: contentId('prev', { product_id: product.product_id, ...body }), ...body };
}

/**
 * The preview of a product in the shopper's context. A merchant's own preview is kept verbatim as a
 * referenced asset; otherwise the catalog image is the asset and the scene is composed around it.
 */
export function buildPreview(
  product: Pick<ProductRow, 'product_id' | 'title' | 'brand' | 'main_image'>,
  ctx: ExperienceContextFacts,
  merchantPreview?: Record<string, unknown>,
): ExperiencePreviewT {
  const d: Dimensions = {
    scene: ctx.scene ?? OPTIONS.scene[0]!,
    mood: ctx.desired_feeling ?? OPTIONS.mood[0]!,
    lighting: OPTIONS.lighting[0]!,
    palette: OPTIONS.palette[0]!,
    framing: OPTIONS.framing[0]!,
  };
  const options = Object.fromEntries(REMIX_DIMENSIONS.map((k) => [k, [...new Set([d[k], ...OPTIONS[k]])]])) as Record<
    RemixDimension,
    string[]
  >;
  const referenced = merchantPreview && Object.keys(merchantPreview).length > 0;
  const asset = referenced
    ? merchantPreview
    : { type: 'image', source: 'catalog_image', url: product.main_image, product_id: product.product_id };
  return assemble(product, referenced ? 'referenced' : 'generated', asset, d, ctx.visual_constraints ?? [], 0, null, options);
}

/** True when a stored preview has the shape this module builds (older proposals store `{}`). */
export function isBuiltPreview(p: unknown): p is ExperiencePreviewT {
  return (
    !!p &&
    typeof p === 'object' &&
    Array.isArray((p as ExperiencePreviewT).remixable_dimensions) &&
    typeof (p as ExperiencePreviewT).scene_preview === 'object'
  );
}

/**
 * The preview with one dimension changed. The result is a new render request over the same base
 * image, so its kind is `generated` even when the base was a referenced merchant asset.
 */
export function remixPreview(
  product: Pick<ProductRow, 'product_id' | 'title' | 'brand'>,
  base: ExperiencePreviewT,
  dimension: unknown,
  value: unknown,
): ExperiencePreviewT {
  const dims = base.remixable_dimensions.map((r) => r.dimension);
  if (typeof dimension !== 'string' || !(dims as string[]).includes(dimension)) {
    throw new AppError(
      400,
      'invalid_payload',
      `Invalid payload.dimension: remix needs one of the preview's remixable dimensions (${dims.join(', ')}).`,
      { fields: ['payload.dimension'] },
    );
  }
  if (typeof value !== 'string' || !value.trim() || value.trim().length > REMIX_VALUE_MAX) {
    throw new AppError(
      400,
      'invalid_payload',
      `Invalid payload.value: remix needs the new ${dimension} as a non-empty text of at most ${REMIX_VALUE_MAX} characters.`,
      { fields: ['payload.value'] },
    );
  }
  const to = value.trim();
  const d = Object.fromEntries(base.remixable_dimensions.map((r) => [r.dimension, r.current])) as Dimensions;
  const from = d[dimension as RemixDimension];
  if (from === to)
    throw new AppError(400, 'invalid_payload', `Invalid payload.value: ${dimension} is already "${to}".`, { fields: ['payload.value'] });
  d[dimension as RemixDimension] = to;
  const options = Object.fromEntries(base.remixable_dimensions.map((r) => [r.dimension, r.options])) as Record<RemixDimension, string[]>;
  const baseUrl = typeof base.asset.url === 'string' ? base.asset.url : null;
  const asset = { type: 'image', source: 'remix', url: baseUrl, base_preview_id: base.preview_id };
  return assemble(
    product,
    'generated',
    asset,
    d,
    base.scene_preview.visual_constraints,
    base.revision + 1,
    { dimension, from, to },
    options,
  );
}
