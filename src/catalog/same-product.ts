import type { ProductRow } from '../db/schema-catalog';

/**
 * One product, many sellers (docs/RECOMMEND.md#one-product-many-sellers): whether two catalog
 * listings, usually of different merchants, are the same product. The evidence, strongest first:
 *
 * 1. GTIN: the barcode a manufacturer assigns (Shopify `Variant Barcode`, Merchant Center `gtin`,
 *    ACP `barcodes`). GTIN-8/12/13/14 are one number space once padded to 14 digits; a value whose
 *    check digit is wrong is no evidence (feeds carry placeholders and typos).
 * 2. Brand + MPN: a manufacturer part number means something only under its brand.
 * 3. The normalised title and variant: same words (case, accents, punctuation and a leading brand
 *    aside), same options (colour, size, ...), and no brand that disagrees.
 *
 * Codes that disagree keep listings apart even under one title: two "Crew T-Shirt"s with different
 * GTINs are two products.
 */

export interface ProductIdentity {
  /** GTIN-14s of the product and of its variants. */
  gtins: Set<string>;
  /** Normalised MPNs of the product and of its variants (meaningful under `brand` only). */
  mpns: Set<string>;
  brand: string | null;
  title: string;
  /** The options of the one variant the listing is ('' for a listing of several variants, or none). */
  variant: string;
}

/** What the identity is read from (a product row, as retrieval and the catalog hold it). */
export type IdentitySource = Pick<ProductRow, 'title' | 'brand' | 'variants' | 'feed_attributes'>;

/** Variant attributes a feed row without an item group keeps in feed_attributes (docs/CATALOG.md). */
const VARIANT_ATTRIBUTES = ['color', 'size', 'material', 'pattern', 'age_group', 'gender', 'size_type'] as const;
const OPTION_NAMES: Record<string, string> = { colour: 'color', farbe: 'color', couleur: 'color', groesse: 'size', taille: 'size' };
const BRAND_SUFFIXES = new Set(['inc', 'llc', 'ltd', 'limited', 'co', 'corp', 'corporation', 'company', 'gmbh', 'ag', 'sa', 'plc']);

export function productIdentity(p: IdentitySource): ProductIdentity {
  const attributes = (p.feed_attributes ?? {}) as Record<string, unknown>;
  const variants = Array.isArray(p.variants) ? p.variants : [];
  const gtins = new Set<string>();
  const mpns = new Set<string>();
  for (const raw of [attributes.gtin, ...variants.map((v) => v.gtin)]) for (const g of gtinsOf(raw)) gtins.add(g);
  for (const raw of [attributes.mpn, ...variants.map((v) => v.mpn)]) {
    const m = normaliseCode(raw);
    if (m) mpns.add(m);
  }
  const brand = normaliseBrand(p.brand);
  return { gtins, mpns, brand, title: normaliseTitle(p.title, brand), variant: variantIdentity(variants, attributes) };
}

/**
 * GTIN-14 of a barcode as feeds write it ("0 36000 29145 2", "036000291452", 4006381333931), or
 * null when it is not a GTIN (wrong length or check digit, all zeros).
 */
export function normaliseGtin(raw: unknown): string | null {
  if (typeof raw !== 'string' && typeof raw !== 'number') return null;
  const s = String(raw).replace(/[\s-]/g, '');
  if (!/^\d+$/.test(s) || ![8, 12, 13, 14].includes(s.length)) return null;
  const g = s.padStart(14, '0');
  if (/^0+$/.test(g)) return null;
  let sum = 0;
  for (let i = 0; i < 13; i++) sum += Number(g[i]) * (i % 2 === 0 ? 3 : 1);
  return (10 - (sum % 10)) % 10 === Number(g[13]) ? g : null;
}

/** One field may list several barcodes ("036000291452, 4006381333931" or a JSON array). */
function gtinsOf(raw: unknown): string[] {
  const values = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[,;|]/) : [raw];
  return values.flatMap((v) => normaliseGtin(v) ?? []);
}

/** A part number: letters and digits only, lower case ("AB-1234/X" = "ab1234x"). */
export function normaliseCode(raw: unknown): string | null {
  if (typeof raw !== 'string' && typeof raw !== 'number') return null;
  const s = String(raw)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
  return s || null;
}

/** Words only: accents, case and punctuation gone, `&` read as "and". */
function words(s: string): string[] {
  return s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** "Acme, Inc." = "ACME" = "acme co". */
export function normaliseBrand(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const w = words(raw);
  while (w.length > 1 && BRAND_SUFFIXES.has(w[w.length - 1]!)) w.pop();
  return w.length ? w.join(' ') : null;
}

/** The title's words, without the brand when the title starts with it ("Acme Crew Tee" = "Crew Tee" by Acme). */
export function normaliseTitle(raw: string, brand: string | null): string {
  const w = words(raw);
  const b = brand ? brand.split(' ') : [];
  const starts = b.length > 0 && b.length < w.length && b.every((x, i) => w[i] === x);
  return (starts ? w.slice(b.length) : w).join(' ');
}

function variantIdentity(variants: NonNullable<IdentitySource['variants']>, attributes: Record<string, unknown>): string {
  let options: Array<{ name: string; value: string }>;
  if (variants.length > 1) return '';
  if (variants.length === 1) options = variants[0]!.options ?? [];
  else
    options = VARIANT_ATTRIBUTES.flatMap((name) =>
      typeof attributes[name] === 'string' || typeof attributes[name] === 'number' ? [{ name, value: String(attributes[name]) }] : [],
    );
  return options
    .map((o) => {
      const name = words(o.name).join('_');
      return `${OPTION_NAMES[name] ?? name}=${words(o.value).join(' ')}`;
    })
    .filter((o) => !o.endsWith('='))
    .sort()
    .join(';');
}

export type Verdict = 'same' | 'different' | 'unknown';

/**
 * Whether two listings are one product: `same` on positive evidence, `different` when their codes
 * (or brands) disagree, `unknown` when neither can be told (different titles and no shared code).
 */
export function compareIdentities(a: ProductIdentity, b: ProductIdentity): Verdict {
  if (a.gtins.size && b.gtins.size) return intersects(a.gtins, b.gtins) ? 'same' : 'different';
  if (a.brand && b.brand && a.brand !== b.brand) return 'different';
  if (a.brand && a.brand === b.brand && a.mpns.size && b.mpns.size) return intersects(a.mpns, b.mpns) ? 'same' : 'different';
  if (a.title && a.title === b.title) return a.variant === b.variant ? 'same' : 'different';
  return 'unknown';
}

const intersects = (a: Set<string>, b: Set<string>) => [...a].some((x) => b.has(x));

/**
 * Ranked listings in groups of one product, in rank order: a group stands at its best-ranked
 * member's position, and that member comes first. A listing joins the first group where some member
 * is the same product and none is told apart from it, and whose merchants do not include its own:
 * a group is one product from several sellers. A merchant's own duplicate listings are not merged
 * (they are the merchant's to fix; the seed catalog's generated titles repeat within its one merchant).
 */
export function groupSameProducts<T>(items: T[], view: (item: T) => { merchantId: string; identity: ProductIdentity }): T[][] {
  const groups: Array<{ members: T[]; identities: ProductIdentity[]; merchants: Set<string> }> = [];
  for (const item of items) {
    const { merchantId, identity } = view(item);
    const group = groups.find((g) => {
      if (g.merchants.has(merchantId)) return false;
      const verdicts = g.identities.map((other) => compareIdentities(identity, other));
      return verdicts.includes('same') && !verdicts.includes('different');
    });
    if (group) {
      group.members.push(item);
      group.identities.push(identity);
      group.merchants.add(merchantId);
    } else groups.push({ members: [item], identities: [identity], merchants: new Set([merchantId]) });
  }
  return groups.map((g) => g.members);
}
