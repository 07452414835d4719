/**
 * Product attributes a shopper asks for and a product states: how many people it is for, its size,
 * colour, material, who it is for (gender and age), how many come in it, and amounts with their units.
 * Read from a sentence (readSentenceAttributes; understandShoppingIntent adds the person it read) and
 * from a product row (productAttributes: title, variant options, feed attributes, category, and the
 * description for agreement only), then compared (attributeFit). Pure and deterministic.
 *
 * The numbers with their measure words come from src/text/measures.ts, which also takes them out of
 * the keywords; colour, material and size words stay keywords (titles carry them) and are read here.
 */
import type { ProductRow } from '../db/schema-catalog';
import { parseBudget, parseRegion } from '../matching/intent-text';
import type { AmountDimension, Measure } from '../text/measures';
import {
  findPhrases,
  keyed,
  longestPhrase,
  normalizeQuery,
  readMeasuredWords,
  readSentence,
  spanText,
  type Part,
  type Reading,
} from '../text/words';

// ---------------------------------------------------------------------------------------------
// Types

export type ColourFamily =
  | 'black'
  | 'white'
  | 'grey'
  | 'blue'
  | 'green'
  | 'red'
  | 'pink'
  | 'purple'
  | 'yellow'
  | 'orange'
  | 'brown'
  | 'beige'
  | 'gold'
  | 'silver'
  | 'clear'
  | 'multi';
/** letter: XS..5XL; number: shoe and clothing numbers ("10", "eu 42"); bed: twin..california king; toddler: 2T..6T. */
export type SizeSystem = 'letter' | 'number' | 'bed' | 'toddler';
export type Gender = 'male' | 'female' | 'unisex';
export type AgeStage = 'baby' | 'toddler' | 'kids' | 'teen' | 'adult';

/**
 * One attribute's value. Amounts are in one base unit per dimension (ml, g, oz, mm, W, mAh, GB,
 * cups) as a range (min = max for a single value); dimensions keep the numbers as written.
 */
export type AttributeValue =
  | { kind: 'capacity'; min: number; max: number }
  | { kind: 'pack'; count: number }
  | { kind: 'amount'; dimension: AmountDimension; min: number; max: number }
  | { kind: 'dimensions'; values: number[]; mmPerUnit: number | null }
  | { kind: 'size'; system: SizeSystem; value: string }
  | { kind: 'colour'; family: ColourFamily; name: string }
  | { kind: 'material'; family: string; name: string }
  | { kind: 'audience'; gender: Gender | null; stage: AgeStage | null };

export type AttributeKind = AttributeValue['kind'];

/** What a sentence asks for. `negated`: the shopper asked for it NOT to be so ("no leather", "plastic-free"). */
export type WantedAttribute = AttributeValue & { phrase: string; negated: boolean };

/**
 * Where a product states an attribute. A product has what its title, variants, feed attributes and
 * category state; its description and tags mention many things (other products, what it fits), so
 * they only ever agree with what was asked, never contradict it.
 */
export type AttributeSource = 'title' | 'variant' | 'feed' | 'category' | 'description';
export type ProductAttribute = AttributeValue & { phrase: string; source: AttributeSource };

/** The product columns read; only the title is required. */
export type AttributeProduct = Pick<ProductRow, 'title'> &
  Partial<Pick<ProductRow, 'description' | 'brand' | 'variants' | 'feed_attributes' | 'category_l1' | 'category_l2'>>;

export interface AttributeFit {
  /** In [-1, 1]: > 0 the product has what was asked, < 0 it clearly has something else, 0 unknown or nothing asked. */
  score: number;
  /** What agreed, e.g. "colour navy", "capacity 4". */
  matched: string[];
  /** What disagreed, e.g. "capacity 4 (product: 2)". */
  conflicting: string[];
}

// ---------------------------------------------------------------------------------------------
// Vocabulary

/** How a word is read where it is found. */
type Reach =
  /** Anywhere. */
  | 'always'
  /** A colour that is also a flavour, a scent or a thing ("olive oil", "mint tea", "rose water"): only where it is plainly a colour. */
  | 'colour-context'
  /** "small", "large": a size in a sentence and in a size option; in a title only where it reads as the size. */
  | 'size-word'
  /** "full", "double", "single": a bed size before a bedding word or in a size option. */
  | 'bed-word'
  /** Who a product is for: product text and feed values, never a sentence (understand.ts reads the person there). */
  | 'product-audience';

type Meaning = AttributeValue & { reach: Reach; surface?: RegExp };

const table: Array<[string[], Meaning]> = [];
const add = (phrases: string, meaning: Meaning) => table.push([phrases.split('|'), meaning]);

/** A colour family's words; the first name of each entry is its canonical name. */
function colours(family: ColourFamily, always: string, inContext = ''): void {
  for (const [list, reach] of [
    [always, 'always'],
    [inContext, 'colour-context'],
  ] as const) {
    for (const entry of list.split(',').filter(Boolean)) {
      const [name, ...others] = entry.split('|');
      add([name, ...others].join('|'), { kind: 'colour', family, name: name!, reach });
    }
  }
}
colours('black', 'black,jet black,matte black,onyx');
colours('white', 'white,off white|off-white,ivory,snow white,optic white', 'pearl,chalk,snow');
colours(
  'grey',
  'grey|gray,charcoal|charcoal grey|charcoal gray,heather grey|heather gray,graphite,gunmetal,pewter,space grey|space gray,dark grey|dark gray,light grey|light gray',
  'slate,ash,smoke,stone',
);
colours(
  'blue',
  'blue,navy|navy blue,royal blue,sky blue,baby blue,powder blue,light blue,dark blue,cobalt|cobalt blue,teal,turquoise,aqua,indigo,midnight blue,cyan,periwinkle',
  'denim blue,ocean,steel blue',
);
colours(
  'green',
  'green,emerald,forest green,hunter green,army green,olive green,sage green,mint green,lime green,jade,kelly green,seafoam|seafoam green,dark green,light green',
  'olive,sage,mint,lime,forest',
);
colours('red', 'red,burgundy,maroon,crimson,scarlet,cherry red,brick red,oxblood,ruby,dark red', 'wine,cherry,brick');
colours(
  'pink',
  'pink,blush pink,hot pink,dusty rose,rose pink,fuchsia,magenta,coral,light pink,bubblegum pink',
  'blush,rose,salmon,bubblegum',
);
colours('purple', 'purple,lilac,violet,mauve,amethyst,dark purple', 'lavender,plum,eggplant,grape');
colours('yellow', 'yellow,canary yellow,mustard yellow,lemon yellow,butter yellow', 'mustard,lemon,butter');
colours('orange', 'orange,rust,terracotta,burnt orange,tangerine', 'peach,apricot,copper,pumpkin');
colours('brown', 'brown,chestnut,dark brown,light brown', 'chocolate,espresso,mocha,coffee,walnut,cognac,caramel,bronze');
colours('beige', 'beige,tan,khaki,taupe,nude,camel,ecru', 'cream,sand,oatmeal,bone,champagne,natural');
colours('gold', 'gold,rose gold,champagne gold');
colours('silver', 'silver,chrome');
colours('clear', 'clear,transparent');
colours('multi', 'multicolor|multicolour|multi color|multi colour|multi-color|multi-colour|multicolored|multicoloured,rainbow,assorted');

/** A material family's words; `generic` names the family itself ("wood"), the others one kind of it. */
function materials(family: string, generic: string, kinds = ''): void {
  add(generic, { kind: 'material', family, name: family, reach: 'always' });
  for (const entry of kinds.split(',').filter(Boolean)) {
    const [name, ...others] = entry.split('|');
    add([name, ...others].join('|'), { kind: 'material', family, name: name!, reach: 'always' });
  }
}
materials('cotton', 'cotton|100 cotton', 'organic cotton,pima cotton,egyptian cotton,supima cotton');
materials('linen', 'linen|flax', 'french linen,belgian linen');
materials('wool', 'wool|wool blend', 'merino|merino wool,lambswool');
materials('cashmere', 'cashmere');
materials('silk', 'silk', 'mulberry silk');
materials('polyester', 'polyester', 'recycled polyester');
materials('nylon', 'nylon');
materials('fleece', 'fleece');
materials('spandex', 'spandex|elastane|lycra');
materials(
  'leather',
  'leather|genuine leather|real leather',
  'full grain leather|full-grain leather,top grain leather|top-grain leather,suede',
);
materials('faux leather', 'faux leather|vegan leather|pu leather|leatherette|synthetic leather|faux-leather', 'faux suede');
materials('denim', 'denim');
materials('canvas', 'canvas');
materials('velvet', 'velvet');
materials('corduroy', 'corduroy');
materials('satin', 'satin');
materials('microfiber', 'microfiber|microfibre');
materials('felt', 'felt');
materials('bamboo', 'bamboo', 'bamboo viscose');
materials('wood', 'wood|wooden|solid wood|hardwood', 'oak,walnut,pine,teak,acacia,maple,birch,beech,mango wood,cherry wood,rubberwood');
materials('steel', 'steel', 'stainless steel|stainless|18 8 stainless steel|304 stainless steel,carbon steel');
materials('cast iron', 'cast iron|enameled cast iron|enamelled cast iron');
materials('wrought iron', 'wrought iron');
materials('aluminium', 'aluminum|aluminium|anodized aluminum|anodised aluminium');
materials('copper', 'copper');
materials('brass', 'brass');
materials('titanium', 'titanium');
materials('ceramic', 'ceramic', 'porcelain,stoneware,earthenware,bone china');
materials('glass', 'glass', 'borosilicate glass|borosilicate,tempered glass,crystal');
materials('plastic', 'plastic', 'acrylic,polypropylene,tritan');
materials('silicone', 'silicone');
materials('rubber', 'rubber|natural rubber');
materials('marble', 'marble');
materials('granite', 'granite');
materials('rattan', 'rattan|wicker');
materials('jute', 'jute|sisal|seagrass');
materials('hemp', 'hemp');
materials('foam', 'foam', 'memory foam');
materials('gold', 'solid gold', '14k gold|14k solid gold,18k gold,10k gold,24k gold,gold plated|gold-plated,gold filled|gold-filled');
materials('silver', 'sterling silver|925 sterling silver|925 silver');
// Precious metals are their colour too: "gold hoops" asks for what "14k gold hoops" are.
add('solid gold|14k gold|14k solid gold|18k gold|10k gold|24k gold|gold plated|gold-plated|gold filled|gold-filled', {
  kind: 'colour',
  family: 'gold',
  name: 'gold',
  reach: 'always',
});
add('sterling silver|925 sterling silver|925 silver', { kind: 'colour', family: 'silver', name: 'silver', reach: 'always' });

const LETTER = (value: string, phrases: string, reach: Reach) => add(phrases, { kind: 'size', system: 'letter', value, reach });
LETTER('XXS', 'xxs|xx-small|xx small', 'always');
LETTER('XS', 'xs|x-small|x small|extra small', 'always');
LETTER('XL', 'xl|x-large|x large|extra large', 'always');
LETTER('2XL', 'xxl|2xl|xx-large|xx large|2x-large', 'always');
LETTER('3XL', 'xxxl|3xl|xxx-large|3x-large', 'always');
LETTER('4XL', '4xl|xxxxl', 'always');
LETTER('5XL', '5xl', 'always');
LETTER('S', 'small', 'size-word');
LETTER('M', 'medium', 'size-word');
LETTER('L', 'large', 'size-word');
const BED = (value: string, phrases: string, reach: Reach) => add(phrases, { kind: 'size', system: 'bed', value, reach });
BED('twin', 'twin', 'always');
BED('twin xl', 'twin xl|twin extra long', 'always');
BED('queen', 'queen', 'always');
BED('king', 'king', 'always');
BED('california king', 'california king|cal king', 'always');
BED('super king', 'super king', 'always');
BED('full', 'full|full double', 'bed-word');
BED('double', 'double', 'bed-word');
BED('single', 'single', 'bed-word');

const WHO = (gender: Gender | null, stage: AgeStage | null, phrases: string, surface?: RegExp) =>
  add(phrases, { kind: 'audience', gender, stage, reach: 'product-audience', surface });
// "men" and "women" are keyed as "man" and "woman": only the plural label counts ("Iron Man" is no audience).
WHO('male', 'adult', 'men|mens', /^men/);
WHO('female', 'adult', 'women|womens', /^women/);
WHO('female', 'adult', 'ladies', /^ladies/);
WHO('male', null, 'male');
WHO('female', null, 'female');
WHO('male', 'kids', 'boy|boys');
WHO('female', 'kids', 'girl|girls');
WHO(null, 'kids', 'kid|kids|child|children|childrens|youth|big kid|little kid');
WHO(null, 'toddler', 'toddler');
WHO(null, 'baby', 'baby|babies|infant|newborn');
WHO(null, 'teen', 'teen|teens|teenager');
WHO(null, 'adult', 'adult|adults');
add('unisex', { kind: 'audience', gender: 'unisex', stage: null, reach: 'always' });

/** Phrases to their meanings (a phrase may have several: "walnut" is a wood and a brown). */
const MEANINGS: Map<string, Meaning[]> = (() => {
  const byKey = new Map<string, Meaning[]>();
  for (const [phrases, meaning] of table) {
    for (const [key] of keyed([[meaning, phrases]])) {
      const known = byKey.get(key) ?? [];
      if (!known.includes(meaning)) byKey.set(key, [...known, meaning]);
    }
  }
  return byKey;
})();
const LONGEST = longestPhrase(MEANINGS);

const SHADES = new Set(['light', 'dark', 'pale', 'deep', 'bright', 'dusty', 'soft', 'muted', 'neon', 'hot', 'heather', 'matte']);
const COLOUR_NOUNS = new Set(['color', 'colour', 'colored', 'coloured', 'tone', 'toned', 'shade']);
/** After "small", "medium", "large" these say something else: "medium roast", "large print", "small batch". */
const NOT_SIZED = new Set(['roast', 'print', 'batch', 'business', 'kitchen', 'appliance', 'space', 'pet', 'breed', 'animal']);
const BEDDING = new Set(
  'sheet bed mattress duvet comforter quilt bedding frame topper pillowcase headboard blanket bedspread coverlet bedskirt protector size'.split(
    ' ',
  ),
);
const NEGATIONS = new Set(['no', 'non', 'without', 'not']);

// ---------------------------------------------------------------------------------------------
// Reading text

/** Where text is read: a shopper's sentence, a product's title or description, or a named option or feed value. */
type Context = 'sentence' | 'title' | 'description' | 'colour' | 'size' | 'material' | 'gender' | 'age' | 'option';

type Read = AttributeValue & { phrase: string; negated: boolean };

function fromMeasure(m: Measure, ctx: Context): AttributeValue | null {
  switch (m.kind) {
    case 'capacity':
      return { kind: 'capacity', min: m.min, max: m.max };
    case 'pack':
      return { kind: 'pack', count: m.count };
    case 'amount':
      return { kind: 'amount', dimension: m.dimension, min: m.min, max: m.max };
    case 'dimensions':
      return { kind: 'dimensions', values: m.values, mmPerUnit: m.mmPerUnit };
    case 'size':
      return sizeValue(m.value, ctx);
  }
}

/** "10", "9.5", "xl", "queen", "4t" as a size (the words through the vocabulary). */
function sizeValue(value: string, ctx: Context): AttributeValue | null {
  if (/^\d+(?:\.\d+)?$/.test(value)) return { kind: 'size', system: 'number', value: String(Number(value)) };
  const toddler = /^([2-6])t$/.exec(value);
  if (toddler) return { kind: 'size', system: 'toddler', value: `${toddler[1]}T` };
  // "s", "m", "l" are sizes only where a size is stated ("size m", a Size option): never as words.
  const letter = ({ s: 'S', m: 'M', l: 'L' } as Record<string, string>)[value];
  if (letter) return ctx === 'size' || ctx === 'sentence' ? { kind: 'size', system: 'letter', value: letter } : null;
  const meaning = MEANINGS.get(normalizeQuery(value).replace(/-/g, ' '))?.find((m) => m.kind === 'size');
  return meaning ? strip(meaning) : null;
}

const strip = ({ reach: _reach, surface: _surface, ...value }: Meaning): AttributeValue => value as AttributeValue;

/** A title's last segment ("Classic Tee - Navy / XL"): where merchants put a variant's colour and size. */
function inLastSegment(normalized: string, part: Part): boolean {
  return /(?:^|\s)-\s/.test(normalized.slice(0, part.start)) && !/(?:^|\s)-\s/.test(normalized.slice(part.start));
}

function admits(meaning: Meaning, ctx: Context, reading: Reading, span: { from: number; to: number }, normalized: string): boolean {
  const { parts } = reading;
  const before = parts[span.from - 1]?.key;
  const after = parts[span.to + 1]?.key;
  const first = parts[span.from]!;
  const option = ctx !== 'sentence' && ctx !== 'title' && ctx !== 'description';
  if (meaning.surface && !meaning.surface.test(normalized.slice(first.start))) return false;
  switch (meaning.reach) {
    case 'always':
      return true;
    case 'colour-context':
      return (
        ctx === 'colour' ||
        ctx === 'option' ||
        (ctx === 'title' && inLastSegment(normalized, first)) ||
        (before !== undefined && (SHADES.has(before) || before === 'in')) ||
        (after !== undefined && COLOUR_NOUNS.has(after))
      );
    case 'size-word':
      if (ctx === 'size' || ctx === 'option') return true;
      if (after !== undefined && NOT_SIZED.has(after)) return false;
      if (ctx === 'sentence') return true;
      return ctx === 'title' && (inLastSegment(normalized, first) || before === 'size' || after === 'size' || span.to === parts.length - 1);
    case 'bed-word':
      return ctx === 'size' || (after !== undefined && BEDDING.has(after));
    case 'product-audience':
      return ctx === 'title' || ctx === 'gender' || ctx === 'age' || option;
  }
}

/** The kinds a named option or feed value may state: a colour option states no material. */
const CONTEXT_KINDS: Partial<Record<Context, AttributeKind[]>> = {
  colour: ['colour'],
  material: ['material'],
  gender: ['audience'],
  age: ['audience'],
};

/**
 * Reads one text. A sentence's budget and region phrases are taken out first (a "$20" is no size);
 * the measures come from src/text/measures.ts, the words from the vocabulary, longest first.
 */
function readText(text: string, ctx: Context): Read[] {
  const normalized = normalizeQuery(text);
  if (!normalized) return [];
  const found = ctx === 'sentence' ? { budgetPhrase: parseBudget(normalized)?.phrase, regionPhrase: parseRegion(text)?.phrase } : {};
  // A size option's value is one size: "S", "XL", "Queen", "10".
  const whole = ctx === 'size' ? sizeValue(normalized, ctx) : null;
  if (whole) return [{ ...whole, phrase: text.trim(), negated: false }];
  const sentence = ctx === 'sentence' ? readSentence(normalized, found) : readMeasuredWords(normalized);
  const out: Read[] = [];
  const allowed = CONTEXT_KINDS[ctx];
  for (const m of sentence.measures) {
    const value = fromMeasure(m, ctx);
    if (value && (!allowed || allowed.includes(value.kind))) out.push({ ...value, phrase: m.text, negated: false });
  }
  // A size option's bare number ("10", "EU 42", "10.5 wide") is a size.
  if (ctx === 'size' && !sentence.measures.length) {
    const n = /^(?:(us|eu|uk)\s?)?(\d+(?:\.\d+)?)(?:\s?(us|eu|uk))?(?:\s|$)/.exec(normalized);
    if (n) {
      const scheme = n[1] ?? n[3];
      out.push({
        kind: 'size',
        system: 'number',
        value: `${scheme && scheme !== 'us' ? `${scheme} ` : ''}${Number(n[2])}`,
        phrase: n[0].trim(),
        negated: false,
      });
    }
  }
  const { reading } = sentence;
  for (const hit of findPhrases(reading, MEANINGS, LONGEST)) {
    const phrase = spanText(normalized, reading, hit);
    const negated = isNegated(reading, hit);
    for (const meaning of hit.value) {
      if (allowed && !allowed.includes(meaning.kind)) continue;
      if (!admits(meaning, ctx, reading, hit, normalized)) continue;
      out.push({ ...strip(meaning), phrase, negated } as Read);
    }
  }
  return out;
}

/** "no leather", "without plastic", "non-leather", "leather-free", "plastic free". */
function isNegated(reading: Reading, span: { from: number; to: number }): boolean {
  const before = reading.parts[span.from - 1]?.key;
  const after = reading.parts[span.to + 1]?.key;
  return (before !== undefined && NEGATIONS.has(before)) || after === 'free';
}

// ---------------------------------------------------------------------------------------------
// Sentences

/**
 * What a shopper's sentence asks for: capacity, size, colour, material, pack, amounts, and "unisex".
 * Who it is for ("men's", "for my dad", "toddler") is the audience reading of understand.ts, which
 * adds it to ShoppingIntent.attributes; this function alone does not read people.
 */
export function readSentenceAttributes(text: string): WantedAttribute[] {
  const seen = new Set<string>();
  const out: WantedAttribute[] = [];
  for (const r of readText(text, 'sentence')) {
    const key = `${valueKey(r)}|${r.negated}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(r);
  }
  return out;
}

/** The audience attribute of a person read elsewhere (understand.ts), null when neither gender nor age is known. */
export function audienceAttribute(gender: Gender | null, stage: AgeStage | null, phrase: string): WantedAttribute | null {
  return gender || stage ? { kind: 'audience', gender, stage, phrase, negated: false } : null;
}

function valueKey(v: AttributeValue): string {
  switch (v.kind) {
    case 'capacity':
    case 'amount':
      return `${v.kind}:${v.kind === 'amount' ? v.dimension : ''}:${v.min}-${v.max}`;
    case 'pack':
      return `pack:${v.count}`;
    case 'dimensions':
      return `dimensions:${v.values.join('x')}:${v.mmPerUnit}`;
    case 'size':
      return `size:${v.system}:${v.value}`;
    case 'colour':
    case 'material':
      return `${v.kind}:${v.family}:${v.name}`;
    case 'audience':
      return `audience:${v.gender}:${v.stage}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Products

const OPTION_CONTEXTS: Array<[RegExp, Context]> = [
  [/colou?r|shade|finish/i, 'colour'],
  [/size|fit|length|width|waist/i, 'size'],
  [/material|fabric/i, 'material'],
  [/gender|\bsex\b/i, 'gender'],
  [/^age\b|age[ _]group/i, 'age'],
];
const optionContext = (name: string): Context => OPTION_CONTEXTS.find(([re]) => re.test(name))?.[1] ?? 'option';

/** Feed attributes (src/catalog/feed-import.ts KEPT_ATTRIBUTES) that state an attribute, with how to read them. */
const FEED_CONTEXTS: Record<string, Context> = { color: 'colour', size: 'size', material: 'material', gender: 'gender', age_group: 'age' };

/** A Merchant Center age_group is a value of its own list; "kids" there is 5-13, "toddler" 1-5. */
const AGE_GROUPS: Record<string, AgeStage> = { newborn: 'baby', infant: 'baby', toddler: 'toddler', kids: 'kids', adult: 'adult' };

/** Category names that say who the product is for. */
const CATEGORY_AUDIENCE: Array<[RegExp, Gender | null, AgeStage | null]> = [
  [/^men'?s\b/i, 'male', 'adult'],
  [/^women'?s\b/i, 'female', 'adult'],
  [/^baby\b/i, null, 'baby'],
  [/^kids'?\b/i, null, 'kids'],
];

/** Descriptions are long; what they say about the product itself comes first. */
const DESCRIPTION_CHARS = 1000;

const cache = new WeakMap<object, ProductAttribute[]>();

/**
 * What a product states about itself. Cached per row object (a ranker reads the same candidates for
 * every attribute it compares).
 */
export function productAttributes(product: AttributeProduct): ProductAttribute[] {
  let attrs = cache.get(product);
  if (!attrs) {
    attrs = readProduct(product);
    cache.set(product, attrs);
  }
  return attrs;
}

function readProduct(product: AttributeProduct): ProductAttribute[] {
  const out: ProductAttribute[] = [];
  const push = (source: AttributeSource, reads: Read[]) => {
    for (const { negated, ...r } of reads) if (!negated) out.push({ ...r, source } as ProductAttribute);
  };
  push('title', readText(titleWithoutBrand(product.title, product.brand), 'title'));

  const options = new Map<string, Set<string>>();
  for (const v of product.variants ?? []) {
    if (!v.options?.length && v.title) push('variant', readText(variantTitle(v.title), 'title'));
    for (const o of v.options ?? []) {
      if (typeof o?.name !== 'string' || typeof o.value !== 'string') continue;
      options.set(o.name, (options.get(o.name) ?? new Set()).add(o.value));
    }
  }
  for (const [name, values] of options) for (const value of values) push('variant', readOption(value, optionContext(name)));

  const feed = product.feed_attributes ?? {};
  for (const [field, ctx] of Object.entries(FEED_CONTEXTS)) {
    for (const value of feedValues(feed[field])) push('feed', readOption(value, ctx));
  }

  for (const name of [product.category_l1, product.category_l2]) {
    const hit = name ? CATEGORY_AUDIENCE.find(([re]) => re.test(name)) : undefined;
    if (hit) out.push({ kind: 'audience', gender: hit[1], stage: hit[2], phrase: name!, source: 'category' });
  }
  if (product.description) push('description', readText(product.description.slice(0, DESCRIPTION_CHARS), 'description'));
  return out;
}

/** One option or feed value. A value may list several ("Navy/White", "S, M, L"); each is read. */
function readOption(value: string, ctx: Context): Read[] {
  const age = ctx === 'age' ? AGE_GROUPS[value.trim().toLowerCase()] : undefined;
  if (age) return [{ kind: 'audience', gender: null, stage: age, phrase: value, negated: false }];
  const pieces = value.split(/\s*[/,|;&]\s*|\s+and\s+/).filter(Boolean);
  return (pieces.length > 1 ? pieces : [value]).flatMap((piece) => readText(piece, ctx));
}

function feedValues(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (typeof v === 'number') return [String(v)];
  return Array.isArray(v) ? v.flatMap(feedValues) : [];
}

/** A brand is no attribute of the product ("Black+Decker", "Red Wing"); separators become " - " so a trailing segment is seen. */
function titleWithoutBrand(title: string, brand: string | null | undefined): string {
  let t = title.replace(/\s*[|/,–—]\s*/g, ' - ');
  const b = brand?.trim();
  if (b) {
    const at = t.toLowerCase().indexOf(b.toLowerCase());
    if (at >= 0) t = `${t.slice(0, at)} ${t.slice(at + b.length)}`;
  }
  return t;
}

/** A variant's own title ("Navy / XL") reads like a title's last segment. */
const variantTitle = (title: string) => ` - ${title.replace(/\s*[|/,–—]\s*/g, ' - ')}`;

// ---------------------------------------------------------------------------------------------
// Fit

/** How much each kind counts in the score; people, sizes and amounts decide more than a colour. */
const WEIGHTS: Record<string, number> = {
  capacity: 1,
  size: 1,
  amount: 1,
  dimensions: 1,
  pack: 0.6,
  colour: 0.8,
  material: 0.8,
  audience: 1,
};

/** An amount within this share of what was asked is the same amount (12 oz ≈ 355 ml). */
const SAME_AMOUNT = 0.05;
/** Beyond this share it is another amount; in between, neither. */
const OTHER_AMOUNT = 0.15;
const OZ_ML = 29.5735;
const OZ_G = 28.3495;

/** A comparison: 1 the same, 0.5 close (same colour family, a material's family), 0 not comparable, -1 another value. */
type Verdict = 1 | 0.5 | 0 | -1;

/** The comparison group of a wanted attribute: attributes of one group are alternatives ("navy or black"). */
function groupOf(w: WantedAttribute): string {
  switch (w.kind) {
    case 'size':
      return `size:${w.system}`;
    case 'amount':
      return `amount:${w.dimension}`;
    default:
      return `${w.kind}${w.negated ? ':not' : ''}`;
  }
}

type Aspect = 'gender' | 'age';
type GroupScore = { value: number; label: string };

/**
 * How well a product fits the attributes asked for. Each group of alternatives scores 1 when the
 * product states one of them (0.5 when it only comes close, or only its description says so), -1
 * when what it states is all something else, 0 when it states nothing comparable; the score is the
 * weighted mean over the groups asked for. "Not leather" scores -1 on a product stating leather.
 * Who it is for scores -1 when the product is for another gender or age, else the mean of the two.
 */
export function attributeFit(wanted: readonly WantedAttribute[], product: AttributeProduct): AttributeFit {
  const groups = new Map<string, WantedAttribute[]>();
  for (const w of wanted) groups.set(groupOf(w), [...(groups.get(groupOf(w)) ?? []), w]);
  if (!groups.size) return { score: 0, matched: [], conflicting: [] };
  const attrs = productAttributes(product);
  const matched: string[] = [];
  const conflicting: string[] = [];
  let sum = 0;
  let weights = 0;
  for (const [group, alternatives] of groups) {
    const weight = WEIGHTS[group.split(':')[0]!] ?? 0.5;
    const s = group === 'audience' ? audienceScore(alternatives[0]!, attrs) : groupScore(alternatives, attrs);
    weights += weight;
    sum += weight * s.value;
    if (s.value > 0) matched.push(s.label);
    if (s.value < 0) conflicting.push(s.label);
  }
  const score = Math.max(-1, Math.min(1, sum / weights));
  return { score: Math.round(score * 1000) / 1000, matched, conflicting };
}

function audienceScore(w: WantedAttribute, attrs: ProductAttribute[]): GroupScore {
  if (w.kind !== 'audience') return { value: 0, label: '' };
  const aspects: Aspect[] = [...(w.gender ? (['gender'] as const) : []), ...(w.stage ? (['age'] as const) : [])];
  const label = `audience ${w.phrase}`;
  const scores = aspects.map((aspect) => verdictOver([w], attrs, aspect));
  const against = scores.find((s) => s.value < 0);
  if (against) return { value: -1, label: `${label} (product: ${against.product?.phrase ?? '?'})` };
  return { value: scores.reduce((a, s) => a + s.value, 0) / Math.max(1, scores.length), label };
}

function groupScore(alternatives: WantedAttribute[], attrs: ProductAttribute[]): GroupScore {
  const first = alternatives[0]!;
  const asked = alternatives.map((w) => `${w.negated ? 'not ' : ''}${w.phrase}`).join(' or ');
  const label = asked.includes(first.kind) ? asked : `${first.kind} ${asked}`;
  const v = verdictOver(alternatives, attrs);
  if (first.negated) {
    // Asked NOT to be so: stating it conflicts; stating only other values agrees a little.
    if (v.stated === null) return { value: 0, label };
    return v.stated > 0 ? { value: -1, label: `${label} (product: ${v.product?.phrase ?? '?'})` } : { value: 0.5, label };
  }
  return { value: v.value, label: v.value < 0 ? `${label} (product: ${v.product?.phrase ?? '?'})` : label };
}

/**
 * The best comparison of the alternatives with what the product states. What the product states
 * outweighs what its description mentions ("also available in a 2-person version"), which only
 * agrees, at half.
 */
function verdictOver(
  alternatives: WantedAttribute[],
  attrs: ProductAttribute[],
  aspect?: Aspect,
): { value: number; stated: Verdict | null; product: ProductAttribute | undefined } {
  let stated: Verdict | null = null;
  let described: Verdict | null = null;
  let best: ProductAttribute | undefined;
  let other: ProductAttribute | undefined;
  for (const p of attrs) {
    for (const w of alternatives) {
      const v = compare(w, p, aspect);
      if (v === null) continue;
      if (p.source === 'description') {
        if (v > 0) described = Math.max(described ?? 0, v) as Verdict;
        continue;
      }
      if (stated === null || v > stated) [stated, best] = [v, p];
      if (v < 0) other ??= p;
    }
  }
  if (stated !== null && stated > 0) return { value: stated, stated, product: best };
  if (stated === -1) return { value: -1, stated, product: other };
  return { value: described !== null ? described / 2 : 0, stated, product: undefined };
}

type ValueOf<K extends AttributeKind> = Extract<AttributeValue, { kind: K }>;

/** One wanted value against one product value; null when they are not comparable at all. */
function compare(w: WantedAttribute, p: ProductAttribute, aspect: Aspect | undefined): Verdict | null {
  if (w.kind !== p.kind) return null;
  // Same kind: the product value has the wanted value's shape.
  const same = <K extends AttributeKind>(_kind: K) => p as unknown as ValueOf<K>;
  switch (w.kind) {
    case 'audience': {
      const q = same('audience');
      return aspect === 'gender' ? compareGender(w.gender, q.gender) : compareStage(w.stage, q.stage);
    }
    case 'capacity': {
      const q = same('capacity');
      return w.min <= q.max && q.min <= w.max ? 1 : -1;
    }
    case 'pack':
      return w.count === same('pack').count ? 1 : -1;
    case 'amount':
      return compareAmount(w, same('amount'));
    case 'dimensions':
      return compareDimensions(w, same('dimensions'));
    case 'size': {
      const q = same('size');
      if (q.system !== w.system) return null;
      // "eu 42" and "10" are sizes of different charts.
      if (w.system === 'number' && /^[a-z]/.test(w.value) !== /^[a-z]/.test(q.value)) return null;
      return q.value === w.value ? 1 : -1;
    }
    case 'colour': {
      const q = same('colour');
      if (q.family === 'multi' || w.family === 'multi') return q.family === w.family ? 1 : null;
      if (q.name === w.name || (q.family === w.family && w.name === w.family)) return 1;
      return q.family === w.family ? 0.5 : -1;
    }
    case 'material': {
      const q = same('material');
      if (w.negated) return q.family === w.family && (w.name === w.family || q.name === w.name) ? 1 : -1;
      if (q.name === w.name || (q.family === w.family && w.name === w.family)) return 1;
      if (q.family === w.family) return q.name === q.family ? 0.5 : -1;
      return -1;
    }
  }
}

function compareGender(w: Gender | null, p: Gender | null): Verdict | null {
  if (!w || !p) return null;
  if (w === p) return 1;
  if (p === 'unisex') return 0.5;
  return w === 'unisex' ? null : -1;
}

/** Ages overlap at their edges: a toddler is the oldest baby and the youngest kid; a teen fits adult and kids' sizes alike. */
function compareStage(w: AgeStage | null, p: AgeStage | null): Verdict | null {
  if (!w || !p) return null;
  if (w === p) return 1;
  const pair = `${w}/${p}`;
  if (['baby/toddler', 'kids/toddler', 'toddler/baby', 'toddler/kids'].includes(pair)) return 0.5;
  if (w === 'teen' || p === 'teen') return ['teen/baby', 'baby/teen', 'teen/toddler', 'toddler/teen'].includes(pair) ? -1 : 0;
  return -1;
}

/** Base units of two amount dimensions on one scale: ounces meet a volume as fluid ounces and a mass as ounces of weight. */
function commonScale(a: AmountDimension, b: AmountDimension): [number, number] | null {
  if (a === b) return [1, 1];
  if (a === 'ounce' && b === 'volume') return [OZ_ML, 1];
  if (a === 'volume' && b === 'ounce') return [1, OZ_ML];
  if (a === 'ounce' && b === 'mass') return [OZ_G, 1];
  if (a === 'mass' && b === 'ounce') return [1, OZ_G];
  return null;
}

function compareAmount(w: { dimension: AmountDimension; min: number; max: number }, p: typeof w): Verdict | null {
  const scale = commonScale(w.dimension, p.dimension);
  if (!scale) return null;
  const [wmin, wmax, pmin, pmax] = [w.min * scale[0], w.max * scale[0], p.min * scale[1], p.max * scale[1]];
  const gap = Math.max(0, pmin - wmax, wmin - pmax) / Math.max(wmax, pmax, Number.EPSILON);
  if (gap <= SAME_AMOUNT) return 1;
  return gap <= OTHER_AMOUNT ? 0 : -1;
}

function compareDimensions(w: { values: number[]; mmPerUnit: number | null }, p: typeof w): Verdict | null {
  if (w.values.length !== p.values.length) return null;
  // Both with units: compared in millimetres; otherwise as written (an "8x10 rug" is in the rug's own unit).
  const both = w.mmPerUnit !== null && p.mmPerUnit !== null;
  const scaled = (d: typeof w) => d.values.map((v) => v * (both ? d.mmPerUnit! : 1)).sort((a, b) => a - b);
  const [a, b] = [scaled(w), scaled(p)];
  return a.every((v, i) => Math.abs(v - b[i]!) <= SAME_AMOUNT * Math.max(v, b[i]!)) ? 1 : -1;
}
