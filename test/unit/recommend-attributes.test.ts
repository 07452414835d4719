import { describe, expect, it } from 'vitest';
import { seedCategories } from '../../src/catalog/taxonomy';
import type { ProductVariant } from '../../src/db/schema-catalog';
import { keywordTags } from '../../src/matching/intent-text';
import { newIntentRow } from '../../src/matching/intents';
import {
  attributeFit,
  productAttributes,
  readSentenceAttributes,
  type AttributeProduct,
  type AttributeValue,
  type WantedAttribute,
} from '../../src/recommend/attributes';
import { understandShoppingIntent } from '../../src/recommend/understand';
import { IntentCreateBody } from '../../src/schemas/intents';

const categories = seedCategories();
const understand = (q: string) => understandShoppingIntent(q, { categories });

/** An attribute without the words it was read from, for comparing values. */
const value = ({ phrase: _phrase, negated: _negated, ...v }: WantedAttribute): AttributeValue => v as AttributeValue;
const values = (q: string) => readSentenceAttributes(q).map(value);

const OZ_ML = 29.5735;
const LB_G = 453.592;

describe('readSentenceAttributes: what a sentence asks for', () => {
  it.each<[string, AttributeValue[]]>([
    // How many people
    ['4 person tent', [{ kind: 'capacity', min: 4, max: 4 }]],
    ['4-person tent', [{ kind: 'capacity', min: 4, max: 4 }]],
    ['two person tent', [{ kind: 'capacity', min: 2, max: 2 }]],
    ['a tent that sleeps 6', [{ kind: 'capacity', min: 6, max: 6 }]],
    ['2-man tent under $150', [{ kind: 'capacity', min: 2, max: 2 }]],
    ['tent for a family of four', [{ kind: 'capacity', min: 4, max: 4 }]],
    ['2-4 players board game', [{ kind: 'capacity', min: 2, max: 4 }]],
    // Sizes
    ['size 10 running shoes', [{ kind: 'size', system: 'number', value: '10' }]],
    ['size 9.5 sneakers', [{ kind: 'size', system: 'number', value: '9.5' }]],
    ["men's hoodie size xl", [{ kind: 'size', system: 'letter', value: 'XL' }]],
    ['XXL rain jacket', [{ kind: 'size', system: 'letter', value: '2XL' }]],
    ['large dog bed', [{ kind: 'size', system: 'letter', value: 'L' }]],
    ['queen sheet set', [{ kind: 'size', system: 'bed', value: 'queen' }]],
    ['twin xl sheets for college', [{ kind: 'size', system: 'bed', value: 'twin xl' }]],
    ['full size duvet cover', [{ kind: 'size', system: 'bed', value: 'full' }]],
    ['4t dress', [{ kind: 'size', system: 'toddler', value: '4T' }]],
    ['an 8x10 rug', [{ kind: 'dimensions', values: [8, 10], mmPerUnit: null }]],
    ["8'x10' rug", [{ kind: 'dimensions', values: [8, 10], mmPerUnit: 304.8 }]],
    ['55" tv', [{ kind: 'amount', dimension: 'length', min: 55 * 25.4, max: 55 * 25.4 }]],
    ['27 inch monitor', [{ kind: 'amount', dimension: 'length', min: 27 * 25.4, max: 27 * 25.4 }]],
    // Colours, to a family
    ['navy hoodie', [{ kind: 'colour', family: 'blue', name: 'navy' }]],
    ['navy blue hoodie', [{ kind: 'colour', family: 'blue', name: 'navy' }]],
    [
      'beige linen pants',
      [
        { kind: 'colour', family: 'beige', name: 'beige' },
        { kind: 'material', family: 'linen', name: 'linen' },
      ],
    ],
    ['charcoal grey sweater', [{ kind: 'colour', family: 'grey', name: 'charcoal' }]],
    ['gray beanie', [{ kind: 'colour', family: 'grey', name: 'grey' }]],
    ['olive green jacket', [{ kind: 'colour', family: 'green', name: 'olive green' }]],
    ['rose gold watch', [{ kind: 'colour', family: 'gold', name: 'rose gold' }]],
    ['multicolor yoga mat', [{ kind: 'colour', family: 'multi', name: 'multicolor' }]],
    // Materials
    [
      'stainless steel water bottle 750 ml',
      [
        { kind: 'amount', dimension: 'volume', min: 750, max: 750 },
        { kind: 'material', family: 'steel', name: 'stainless steel' },
      ],
    ],
    ['cast iron skillet', [{ kind: 'material', family: 'cast iron', name: 'cast iron' }]],
    ['bamboo cutting board', [{ kind: 'material', family: 'bamboo', name: 'bamboo' }]],
    ['solid oak desk', [{ kind: 'material', family: 'wood', name: 'oak' }]],
    ['wool socks', [{ kind: 'material', family: 'wool', name: 'wool' }]],
    ['vegan leather tote', [{ kind: 'material', family: 'faux leather', name: 'faux leather' }]],
    // Packs and amounts
    [
      'ceramic mug 12 oz',
      [
        { kind: 'material', family: 'ceramic', name: 'ceramic' },
        { kind: 'amount', dimension: 'ounce', min: 12, max: 12 },
      ],
    ],
    [
      'glass food storage containers set of 4',
      [
        { kind: 'material', family: 'glass', name: 'glass' },
        { kind: 'pack', count: 4 },
      ],
    ],
    ['socks 6-pack', [{ kind: 'pack', count: 6 }]],
    ['pack of 12 pencils', [{ kind: 'pack', count: 12 }]],
    ['1000 piece puzzle', [{ kind: 'pack', count: 1000 }]],
    [
      '12 pack of 12 oz cans',
      [
        { kind: 'pack', count: 12 },
        { kind: 'amount', dimension: 'ounce', min: 12, max: 12 },
      ],
    ],
    ['16.9 fl oz water bottles', [{ kind: 'amount', dimension: 'volume', min: 16.9 * OZ_ML, max: 16.9 * OZ_ML }]],
    ['1 lb coffee beans', [{ kind: 'amount', dimension: 'mass', min: LB_G, max: LB_G }]],
    ['500 g protein powder', [{ kind: 'amount', dimension: 'mass', min: 500, max: 500 }]],
    ['20 L dry bag', [{ kind: 'amount', dimension: 'volume', min: 20_000, max: 20_000 }]],
    ['65w usb c charger', [{ kind: 'amount', dimension: 'power', min: 65, max: 65 }]],
    ['20000mah power bank', [{ kind: 'amount', dimension: 'charge', min: 20_000, max: 20_000 }]],
    ['unisex beanie', [{ kind: 'audience', gender: 'unisex', stage: null }]],
    // Nothing to read: a budget, an age, a product name, a flavour, a wall.
    ['wireless earbuds under $50', []],
    ['yoga mat between 20 and 40 dollars', []],
    ['toys for a 5 year old', []],
    ['birthday gift for a 10-year-old boy', []],
    ['3-in-1 charging station', []],
    ['iphone 15 case', []],
    ['5g phone', []],
    ['olive oil', []],
    ['mint tea', []],
    ['double wall tumbler', []],
    ['medium roast coffee', []],
    ['one piece swimsuit', []],
  ])('%s', (sentence, expected) => {
    const read = values(sentence);
    expect(read).toHaveLength(expected.length);
    for (const e of expected) {
      const match = read.find((r) => r.kind === e.kind && JSON.stringify(Object.keys(r).sort()) === JSON.stringify(Object.keys(e).sort()));
      expect(match, `${sentence}: ${JSON.stringify(read)}`).toBeDefined();
      for (const [k, v] of Object.entries(e)) {
        if (typeof v === 'number') expect((match as Record<string, unknown>)[k], k).toBeCloseTo(v, 3);
        else expect((match as Record<string, unknown>)[k], k).toEqual(v);
      }
    }
  });

  it('keeps the words as written and reads "no leather", "plastic-free" as asking NOT to be so', () => {
    expect(readSentenceAttributes('wallet with no leather')).toEqual([
      { kind: 'material', family: 'leather', name: 'leather', phrase: 'leather', negated: true },
    ]);
    expect(readSentenceAttributes('plastic-free lunch box')).toEqual([
      { kind: 'material', family: 'plastic', name: 'plastic', phrase: 'plastic', negated: true },
    ]);
    expect(readSentenceAttributes('4-Person Tent')[0]).toMatchObject({ phrase: '4-person', negated: false });
  });
});

describe('understandShoppingIntent: attributes, and the words that stay keywords', () => {
  it('numbers with their measure words leave the keywords; colour and material words stay', () => {
    expect(understand('4 person tent').keywords).toEqual(['tent']);
    expect(understand('12 oz stainless steel tumbler 2-pack').keywords).toEqual(['stainless', 'steel', 'tumbler']);
    expect(understand('size 10 running shoes').keywords).toEqual(['running', 'shoes']);
    expect(understand('navy linen shirt').keywords).toEqual(['navy', 'linen', 'shirt']);
    expect(understand('an 8x10 rug').keywords).toEqual(['rug']);
  });

  it('"2-man tent" is a capacity, not a man', () => {
    const si = understand('2-man tent');
    expect(si.audience).toBeNull();
    expect(si.excludedL1).toEqual([]);
    expect(si.attributes).toEqual([{ kind: 'capacity', min: 2, max: 2, phrase: '2-man', negated: false }]);
    expect(si.categories.map((c) => c.path)).toEqual(['Sports & Outdoors > Camping Gear']);
  });

  it('who it is for comes from the audience reading: gender and life stage', () => {
    const person = (q: string) => understand(q).attributes.find((a) => a.kind === 'audience');
    expect(person('a gift for my dad who likes grilling')).toEqual({
      kind: 'audience',
      gender: 'male',
      stage: 'adult',
      phrase: 'for my dad',
      negated: false,
    });
    expect(person("men's navy hoodie")).toMatchObject({ gender: 'male', stage: null });
    expect(person("women's rain jacket")).toMatchObject({ gender: 'female', stage: null });
    expect(person('toddler rain boots')).toMatchObject({ gender: null, stage: 'kids' });
    expect(person('rain boots for my son')).toMatchObject({ gender: 'male', stage: 'kids' });
    expect(person('baby swaddle')).toMatchObject({ gender: null, stage: 'baby' });
    expect(person('toys for a 5 year old')).toMatchObject({ gender: null, stage: 'kids' });
    expect(person('unisex beanie')).toMatchObject({ gender: 'unisex', stage: null });
    expect(person('running shoes')).toBeUndefined();
  });

  it('the rest of the sentence is read alongside', () => {
    const si = understand('navy linen shirt for my husband under $60');
    expect(si.attributes.map(value)).toEqual([
      { kind: 'colour', family: 'blue', name: 'navy' },
      { kind: 'material', family: 'linen', name: 'linen' },
      { kind: 'audience', gender: 'male', stage: 'adult' },
    ]);
    expect(si.budget).toMatchObject({ maxCents: 6000 });
  });
});

// ---------------------------------------------------------------------------------------------
// Products as src/catalog/feed-import.ts stores them.

const variant = (id: string, options: Array<[string, string]>): ProductVariant => ({
  id,
  sku: id,
  title: options.map(([, v]) => v).join(' / '),
  options: options.map(([name, v]) => ({ name, value: v })),
  price_cents: 2800,
  compare_at_price_cents: null,
  availability: 'in_stock',
  inventory_qty: 10,
  image: null,
  link: null,
  gtin: null,
  mpn: null,
});

/** A Shopify product export (Option1 Name "Color", Option2 Name "Size"), as the importer regroups and stores it. */
const shopifyTee: AttributeProduct = {
  title: 'Northwind Organic Cotton Crew Tee',
  brand: 'Northwind',
  description: 'A soft everyday tee. Pairs well with our black joggers and a leather belt. Machine wash cold.',
  category_l1: "Men's Clothing",
  category_l2: 'T-Shirts',
  variants: ['Navy', 'Heather Grey'].flatMap((c) =>
    ['S', 'M', 'L', 'XL'].map((s) =>
      variant(`TEE-${c}-${s}`, [
        ['Color', c],
        ['Size', s],
      ]),
    ),
  ),
  feed_attributes: { product_type: 'Tee', shipping_weight: '180 g' },
};

/** A Merchant Center row (TSV or XML) of one item, with color, material, gender and age_group. */
const merchantCenterTent: AttributeProduct = {
  title: 'Trailhead 4-Person Dome Tent',
  brand: 'Summit Co',
  description: 'Sleeps 4 with room for gear. Also available in a 2-person version.',
  category_l1: 'Sports & Outdoors',
  category_l2: 'Camping Gear',
  variants: [],
  feed_attributes: {
    gtin: '00012345678905',
    condition: 'new',
    color: 'Forest Green/Tan',
    material: 'Polyester',
    gender: 'unisex',
    age_group: 'adult',
    shipping_weight: '4.2 kg',
  },
};

/** Merchant Center items grouped by item_group_id: the importer makes the color and size attributes variant options. */
const merchantCenterDress: AttributeProduct = {
  title: 'Linen Wrap Dress',
  brand: 'Maison Vela',
  description: 'Breathable linen.',
  category_l1: "Women's Clothing",
  category_l2: 'Dresses',
  variants: [
    variant('DR-1', [
      ['color', 'Sage'],
      ['size', '8'],
    ]),
    variant('DR-2', [
      ['color', 'Sage'],
      ['size', '10'],
    ]),
    variant('DR-3', [
      ['color', 'Terracotta'],
      ['size', '10'],
    ]),
  ],
  feed_attributes: { color: 'Sage', size: '8', gender: 'female', age_group: 'adult', material: 'Linen' },
};

const tumbler: AttributeProduct = {
  title: 'Stanley Insulated Tumbler 40 oz with Straw - Stainless Steel',
  brand: 'Stanley',
  description: '',
  variants: [variant('T30', [['Size', '30 oz']]), variant('T40', [['Size', '40 oz']])],
  feed_attributes: {},
};

const rug: AttributeProduct = {
  title: "Moroccan Trellis Area Rug, 8' x 10', Ivory",
  brand: null,
  description: '',
  variants: [],
  feed_attributes: {},
};
const seeded: AttributeProduct = {
  title: 'Peakline Ultralight Sleeping Bag - Olive',
  brand: 'Peakline',
  description: 'Ultralight sleeping bag from Peakline.',
};

const summary = (p: AttributeProduct) =>
  productAttributes(p).map((a) => `${a.source} ${a.kind} ${a.kind === 'colour' || a.kind === 'material' ? a.name : a.phrase}`);

describe('productAttributes: what a product states', () => {
  it('a Shopify product: title material, variant colours and sizes, the category audience; the description only mentions', () => {
    expect(summary(shopifyTee)).toEqual([
      'title material organic cotton',
      'variant colour navy',
      'variant colour heather grey',
      'variant size S',
      'variant size M',
      'variant size L',
      'variant size XL',
      "category audience Men's Clothing",
      'description colour black',
      'description material leather',
    ]);
    // The shipping weight is the parcel's, not the product's.
    expect(productAttributes(shopifyTee).some((a) => a.kind === 'amount')).toBe(false);
  });

  it('a Merchant Center row: capacity from the title, colours, material, gender and age group from the feed', () => {
    expect(productAttributes(merchantCenterTent).map(({ phrase: _p, ...a }) => a)).toEqual([
      { kind: 'capacity', min: 4, max: 4, source: 'title' },
      { kind: 'colour', family: 'green', name: 'forest green', source: 'feed' },
      { kind: 'colour', family: 'beige', name: 'tan', source: 'feed' },
      { kind: 'material', family: 'polyester', name: 'polyester', source: 'feed' },
      { kind: 'audience', gender: 'unisex', stage: null, source: 'feed' },
      { kind: 'audience', gender: null, stage: 'adult', source: 'feed' },
      { kind: 'capacity', min: 4, max: 4, source: 'description' },
      { kind: 'capacity', min: 2, max: 2, source: 'description' },
    ]);
  });

  it('grouped Merchant Center items: every variant colour and size, a colour word that is also a herb read as a colour there', () => {
    const s = summary(merchantCenterDress);
    expect(s).toEqual(expect.arrayContaining(['variant colour sage', 'variant colour terracotta', 'variant size 8', 'variant size 10']));
    expect(s).toEqual(expect.arrayContaining(['feed material linen', 'title material linen', "category audience Women's Clothing"]));
  });

  it('amounts in the title and the variants, dimensions and a colour after the title separator; the brand is not read', () => {
    expect(summary(tumbler)).toEqual([
      'title amount 40 oz',
      'title material stainless steel',
      'variant amount 30 oz',
      'variant amount 40 oz',
    ]);
    expect(summary(rug)).toEqual(['title dimensions 8 ft x 10 ft', 'title colour ivory']);
    expect(summary(seeded)).toEqual(['title colour olive']);
    expect(summary({ title: 'Black+Decker Dustbuster Handheld Vacuum', brand: 'Black+Decker' })).toEqual([]);
    expect(summary({ title: 'Extra Virgin Olive Oil, 500 ml' })).toEqual(['title amount 500 ml']);
  });

  it('is read once per row object', () => {
    const p = { ...tumbler };
    expect(productAttributes(p)).toBe(productAttributes(p));
  });
});

describe('attributeFit: positive when the product has it, negative when it clearly has something else, 0 unknown', () => {
  const fit = (q: string, p: AttributeProduct) => attributeFit(understand(q).attributes, p);
  const tent = (title: string): AttributeProduct => ({ title, category_l1: 'Sports & Outdoors', category_l2: 'Camping Gear' });

  it('capacity: a 2 person tent is not a 4 person tent', () => {
    expect(fit('4 person tent', tent('Summit 4-Person Dome Tent'))).toEqual({ score: 1, matched: ['capacity 4 person'], conflicting: [] });
    expect(fit('4 person tent', tent('Summit 2-Person Backpacking Tent'))).toEqual({
      score: -1,
      matched: [],
      conflicting: ['capacity 4 person (product: 2-person)'],
    });
    expect(fit('4 person tent', tent('Summit Dome Tent')).score).toBe(0);
    expect(fit('tent that sleeps 4', tent('Summit 2-4 Person Tent')).score).toBe(1);
    // The title says 4; the description's other version does not turn the match into a conflict, nor the reverse.
    expect(fit('4 person tent', merchantCenterTent).score).toBe(1);
    expect(fit('2 person tent', merchantCenterTent).score).toBe(-1);
  });

  it('colour: red is not navy; a variant in navy is; navy is a blue', () => {
    expect(fit('navy tee', shopifyTee).score).toBe(1);
    expect(fit('red tee', shopifyTee)).toMatchObject({ score: -1, conflicting: ['colour red (product: navy)'] });
    expect(fit('blue tee', shopifyTee).score).toBe(1);
    expect(fit('royal blue tee', shopifyTee).score).toBeCloseTo(0.5);
    expect(fit('navy or red tee', shopifyTee).score).toBe(1);
    expect(fit('grey tee', { title: 'Crew Tee - Multicolor' }).score).toBe(0);
  });

  it('size, per chart: XL among S..XL; 12 not among 8 and 10; a letter says nothing about a number', () => {
    expect(fit('navy tee size xl', shopifyTee)).toMatchObject({ score: 1, matched: ['size xl', 'colour navy'] });
    expect(fit('tee size xxl', shopifyTee).score).toBe(-1);
    expect(fit('dress size 10', merchantCenterDress).score).toBe(1);
    expect(fit('dress size 12', merchantCenterDress).score).toBe(-1);
    expect(fit('dress size m', merchantCenterDress).score).toBe(0);
  });

  it('amounts: same unit, across units, and ounces as volume or weight', () => {
    expect(fit('40 oz tumbler', tumbler).score).toBe(1);
    expect(fit('30 oz tumbler', tumbler).score).toBe(1);
    expect(fit('20 oz tumbler', tumbler).score).toBe(-1);
    expect(fit('1.2 liter tumbler', tumbler).score).toBe(1);
    expect(fit('12 oz mug', { title: 'Stoneware Mug, 355 ml' }).score).toBe(1);
    expect(fit('1 lb coffee', { title: 'Whole Bean Coffee 16 oz Bag' }).score).toBe(1);
    expect(fit('1 lb coffee', { title: 'Whole Bean Coffee 2 lb Bag' }).score).toBe(-1);
    // 340 g is 12 oz: within 5% of 12.5 oz the same amount; 12 oz is within 15% of 14 oz, neither the same nor another.
    expect(fit('12.5 oz coffee', { title: 'Whole Bean Coffee 340 g' }).score).toBe(1);
    expect(fit('14 oz coffee', { title: 'Whole Bean Coffee 12 oz' }).score).toBe(0);
    expect(fit('55 inch tv', { title: 'Vista 65" 4K Smart TV' }).score).toBe(-1);
    expect(fit('55 inch tv', { title: 'Universal TV Wall Mount for 32-70 inch TVs' }).score).toBe(1);
  });

  it('dimensions and packs', () => {
    expect(fit('8x10 rug', rug).score).toBe(1);
    expect(fit('5x7 rug', rug).score).toBe(-1);
    expect(fit('10x8 rug', rug).score).toBe(1);
    expect(fit('socks 6-pack', { title: 'Athletic Crew Socks, 6-Pack' }).score).toBe(1);
    expect(fit('socks 6-pack', { title: 'Athletic Crew Socks, Pack of 3' }).score).toBe(-1);
    expect(fit('socks 6-pack', { title: 'Athletic Crew Socks' }).score).toBe(0);
  });

  it('material: a family covers its kinds; the description agrees but never contradicts; "no leather"', () => {
    expect(fit('cotton tee', shopifyTee).score).toBe(1);
    expect(fit('polyester tee', shopifyTee).score).toBe(-1);
    expect(fit('wood desk', { title: 'Solid Oak Writing Desk' }).score).toBe(1);
    expect(fit('oak desk', { title: 'Wooden Writing Desk' }).score).toBeCloseTo(0.5);
    expect(fit('oak desk', { title: 'Walnut Writing Desk' }).score).toBe(-1);
    expect(fit('leather wallet', { title: 'Slim Wallet', description: 'Made of full grain leather.' }).score).toBeCloseTo(0.5);
    expect(fit('leather wallet', { title: 'Slim Wallet', description: 'Not leather: recycled nylon.' }).score).toBe(0);
    expect(fit('wallet with no leather', { title: 'Genuine Leather Bifold Wallet' }).score).toBe(-1);
    expect(fit('wallet with no leather', { title: 'Canvas Bifold Wallet' }).score).toBeCloseTo(0.5);
  });

  it("who it is for: a gift for my dad is not a women's or a kids' product", () => {
    expect(fit('a gift for my dad', shopifyTee)).toEqual({ score: 1, matched: ['audience for my dad'], conflicting: [] });
    expect(fit('a gift for my dad', merchantCenterDress)).toEqual({
      score: -1,
      matched: [],
      conflicting: ['audience for my dad (product: female)'],
    });
    expect(fit('a gift for my dad', { title: "Kids' Rain Boots", category_l1: 'Footwear', category_l2: "Kids' Shoes" }).score).toBe(-1);
    // Unisex fits a man halfway; an adult product of no stated gender fits a dad on age alone.
    expect(fit("men's tent", merchantCenterTent).score).toBeCloseTo(0.5);
    expect(fit('a gift for my dad', merchantCenterTent).score).toBeCloseTo(0.75);
    expect(fit('a gift for my dad', { title: 'Grill Tool Set' }).score).toBe(0);
    // A toddler is read as a kid; a toddler product fits a kid halfway, a baby product not at all.
    expect(fit('toddler rain boots', { title: 'Toddler Rain Boots' }).score).toBeCloseTo(0.5);
    expect(fit('rain boots for my son', { title: 'Infant Rain Booties' }).score).toBe(-1);
    expect(fit('rain boots for my son', { title: "Boys' Rain Boots" }).score).toBe(1);
    expect(fit('rain boots for my son', { title: "Girls' Rain Boots" }).score).toBe(-1);
  });

  it('several attributes: the weighted mean, within [-1, 1]; nothing asked is 0', () => {
    const r = fit('navy cotton tee size xxl', shopifyTee);
    expect(r.matched).toEqual(['colour navy', 'material cotton']);
    expect(r.conflicting).toEqual(['size xxl (product: S)']);
    expect(r.score).toBeCloseTo((0.8 + 0.8 - 1) / 2.6, 3);
    expect(attributeFit([], shopifyTee)).toEqual({ score: 0, matched: [], conflicting: [] });
    for (const q of ['4 person tent', 'red tee', 'queen sheets', 'a gift for my dad', '12 oz mug', 'no leather']) {
      for (const p of [shopifyTee, merchantCenterTent, merchantCenterDress, tumbler, rug, seeded]) {
        const { score } = fit(q, p);
        expect(score).toBeGreaterThanOrEqual(-1);
        expect(score).toBeLessThanOrEqual(1);
      }
    }
  });
});

describe('one reading for recommend keywords and intent tags', () => {
  it('"a gift for my dad who likes grilling": no stop words or filler in the tags', () => {
    const tags = keywordTags('a gift for my dad who likes grilling');
    for (const w of ['a', 'gift', 'for', 'my', 'who', 'likes']) expect(tags).not.toContain(w);
    expect(tags).toEqual(['dad', 'grilling']);
    const row = newIntentRow(IntentCreateBody.parse({ raw_query: 'a gift for my dad who likes grilling' }), {}, new Date());
    expect(row.intent_tags).toEqual(['dad', 'grilling']);
    expect(understand('a gift for my dad who likes grilling').keywords).toEqual(['grilling']);
  });

  it('the tags are the recommend keywords plus the words naming the person', () => {
    for (const q of [
      'Waterproof trail running shoes under $120, shipped to Canada!',
      'something nice for my wife',
      'I am looking for a 4 person tent under $200',
      'cheap wireless earbuds for my son in the UK',
      'navy linen shirt for my husband',
      'looking for a 12 oz stainless steel tumbler, 2-pack',
      'top rated noise cancelling headphones',
      'best gift ideas for a dog lover',
      'birthday present for a 7 year old under 30 dollars',
    ]) {
      const keywords = understand(q).keywords;
      const tags = keywordTags(q);
      expect(
        tags.filter((t) => !keywords.includes(t)).every((t) => ['wife', 'son', 'husband', 'dog'].includes(t)),
        q,
      ).toBe(true);
      expect(
        keywords.every((k) => tags.includes(k)),
        q,
      ).toBe(true);
    }
    expect(keywordTags('I am looking for a 4 person tent under $200')).toEqual(['tent']);
    expect(keywordTags('something nice')).toEqual([]);
  });
});
