import { describe, expect, it } from 'vitest';
import { seedCategories, TAXONOMY } from '../../src/catalog/taxonomy';
import {
  ALL_CATEGORIES,
  SHOPPER_SYNONYMS,
  singleEdit,
  understandShoppingIntent,
  type CategoryRef,
  type ResolvedCategory,
  type ShoppingIntent,
} from '../../src/recommend/understand';

// The category table as the database is seeded (ids fixed by TAXONOMY position).
const categories: CategoryRef[] = seedCategories();

const read = (query: string, region?: string | null) => understandShoppingIntent(query, { categories, region, priceQuartiles: quartiles });

/** The expected resolution of a category given by its path ("Footwear > Running Shoes"). */
function category(path: string, via: ResolvedCategory['via'], term: string, table: CategoryRef[] = categories): ResolvedCategory {
  const [l1, l2] = path.split(' > ');
  const parent = table.find((c) => c.level === 1 && c.name === l1);
  const c = l2 ? table.find((x) => x.parent_id === parent?.category_id && x.name === l2) : parent;
  if (!c) throw new Error(`no category ${path}`);
  return { category_id: c.category_id, level: c.level, name: c.name, parent_id: c.parent_id, path, via, term };
}

const paths = (si: ShoppingIntent) => si.categories.map((c) => c.path);

// Catalog price quartiles (USD cents) as the snapshot would load them; made up, so each expectation below is traceable.
const quartiles = new Map<number, { p25: number; p75: number }>([
  [ALL_CATEGORIES, { p25: 2200, p75: 9900 }],
  [category('Computers & Office > Laptop Accessories', 'name', '').category_id, { p25: 1999, p75: 5000 }],
  [category('Electronics > Headphones & Earbuds', 'name', '').category_id, { p25: 3394, p75: 15000 }],
  [category('Footwear', 'name', '').category_id, { p25: 4500, p75: 12000 }],
  [category("Women's Clothing > Outerwear", 'name', '').category_id, { p25: 6000, p75: 14000 }],
  [category("Men's Clothing > Jackets", 'name', '').category_id, { p25: 7000, p75: 16000 }],
  [category('Beauty & Personal Care > Skincare', 'name', '').category_id, { p25: 1500, p75: 3800 }],
  [category('Bags & Accessories > Watches', 'name', '').category_id, { p25: 6000, p75: 21000 }],
  [category('Footwear > Running Shoes', 'name', '').category_id, { p25: 7699, p75: 15000 }],
  [category('Bags & Accessories > Jewelry', 'name', '').category_id, { p25: 2300, p75: 6500 }],
]);

describe('understandShoppingIntent: whole readings', () => {
  it('typo, audience, text budget and text region together', () => {
    expect(read('cheap runing shoes for my dad under $80 in Canada')).toEqual({
      query: 'cheap runing shoes for my dad under $80 in Canada',
      normalized: 'cheap runing shoes for my dad under $80 in canada',
      keywords: ['runing', 'shoes'],
      phrase: 'runing shoes',
      categories: [category('Footwear > Running Shoes', 'typo', 'runing shoes')],
      excludedL1: ["Women's Clothing"],
      budget: { minCents: null, maxCents: 8000, phrase: 'under $80', source: 'text' },
      audience: { label: 'men', phrase: 'for my dad', age: null },
      region: { code: 'CA', source: 'text', phrase: 'in Canada' },
      attributes: [{ kind: 'audience', gender: 'male', stage: 'adult', phrase: 'for my dad', negated: false }],
    });
  });

  it('gift for my mom who loves yoga', () => {
    expect(read('  Gift for my mom who loves yoga ')).toEqual({
      query: 'Gift for my mom who loves yoga',
      normalized: 'gift for my mom who loves yoga',
      keywords: ['yoga'],
      phrase: 'yoga',
      categories: [category('Sports & Outdoors > Yoga & Pilates', 'name', 'yoga')],
      excludedL1: ["Men's Clothing"],
      budget: null,
      audience: { label: 'women', phrase: 'for my mom', age: null },
      region: null,
      attributes: [{ kind: 'audience', gender: 'female', stage: 'adult', phrase: 'for my mom', negated: false }],
    });
  });

  it('birthday gift for a 10 year old boy: a stated age, and an audience hint since no category is named', () => {
    expect(read('birthday gift for a 10 year old boy')).toEqual({
      query: 'birthday gift for a 10 year old boy',
      normalized: 'birthday gift for a 10 year old boy',
      keywords: [],
      phrase: '',
      categories: [category('Toys & Games', 'audience', 'for a 10 year old boy')],
      excludedL1: ["Women's Clothing"],
      budget: null,
      audience: { label: 'kids', phrase: 'for a 10 year old boy', age: '3-12' },
      region: null,
      attributes: [{ kind: 'audience', gender: 'male', stage: 'kids', phrase: 'for a 10 year old boy', negated: false }],
    });
  });

  it('noise cancelling headphones for a teen: a product noun, and no hint for a teen', () => {
    const si = read('noise cancelling headphones for a teen');
    expect(si.keywords).toEqual(['noise', 'cancelling', 'headphones']);
    expect(si.phrase).toBe('noise cancelling headphones');
    expect(si.categories).toEqual([category('Electronics > Headphones & Earbuds', 'synonym', 'noise cancelling headphones')]);
    expect(si.audience).toEqual({ label: 'teens', phrase: 'for a teen', age: '13-19' });
    expect(si.excludedL1).toEqual([]);
    expect(si.budget).toBeNull();
  });

  it('nonsense names nothing', () => {
    for (const [query, keywords] of [
      ['asdfgh', ['asdfgh']],
      ['qwerty zxcv', ['qwerty', 'zxcv']],
      ['', []],
      ['the and of', []],
    ] as const) {
      expect(read(query)).toEqual({
        query,
        normalized: query,
        keywords,
        phrase: keywords.join(' '),
        categories: [],
        excludedL1: [],
        budget: null,
        audience: null,
        region: null,
        attributes: [],
      });
    }
  });
});

describe('categories from names and synonyms', () => {
  it('"dog treats" names the L2, not Pet Supplies', () => {
    const si = read('dog treats');
    expect(si.categories).toEqual([category('Pet Supplies > Dog Food & Treats', 'synonym', 'dog treats')]);
    expect(si.keywords).toEqual(['dog', 'treats']);
  });

  it('"running shoes" is a product, not a runner audience', () => {
    const si = read('running shoes');
    expect(si.categories).toEqual([category('Footwear > Running Shoes', 'name', 'running shoes')]);
    expect(si.audience).toBeNull();
    expect(si.keywords).toEqual(['running', 'shoes']);
  });

  it('a word naming only an L1 reports the L1', () => {
    expect(read('electronics').categories).toEqual([category('Electronics', 'name', 'electronics')]);
    expect(read('shoes').categories).toEqual([category('Footwear', 'synonym', 'shoes')]);
    expect(read('puppy').categories).toEqual([category('Pet Supplies', 'synonym', 'puppy')]);
  });

  it('an L1 is dropped when one of its L2s is named too; L2s come first', () => {
    expect(read('footwear like trail running shoes').categories).toEqual([
      category('Footwear > Running Shoes', 'synonym', 'trail running shoes'),
    ]);
    expect(paths(read('toys and a dog bed'))).toEqual(['Pet Supplies > Pet Beds', 'Toys & Games']);
  });

  it('plurals and singulars read alike', () => {
    for (const q of ['earrings', 'earring', 'necklaces']) expect(paths(read(q))).toEqual(['Bags & Accessories > Jewelry']);
    for (const q of ['backpack', 'backpacks']) expect(paths(read(q))).toEqual(['Bags & Accessories > Backpacks']);
    for (const q of ['dress', 'dresses']) expect(paths(read(q))).toEqual(["Women's Clothing > Dresses"]);
    for (const q of ['mouse', 'mice']) expect(paths(read(q))).toEqual(['Computers & Office > Keyboards & Mice']);
    for (const q of ['t-shirts', 'tshirt', 'tees']) expect(paths(read(q))).toEqual(["Men's Clothing > T-Shirts"]);
  });

  it('the distinctive words of an "A & B" name each name it', () => {
    expect(read('earbuds').categories).toEqual([category('Electronics > Headphones & Earbuds', 'name', 'earbuds')]);
    expect(read('headphones').categories).toEqual([category('Electronics > Headphones & Earbuds', 'name', 'headphones')]);
    expect(read('matcha').categories).toEqual([category('Food & Beverage > Coffee & Tea', 'synonym', 'matcha')]);
  });

  it('hyphenated words and lost apostrophes', () => {
    const si = read("Men's T-Shirts");
    expect(si.categories).toEqual([category("Men's Clothing > T-Shirts", 'name', 't-shirts')]);
    expect(si.keywords).toEqual(['t-shirts']);
    expect(read('trail-running shoes').categories).toEqual([category('Footwear > Running Shoes', 'synonym', 'trail-running shoes')]);
    expect(read('kids shoes').categories).toEqual([category("Footwear > Kids' Shoes", 'name', 'kids shoes')]);
  });

  it('an ambiguous word resolves to every category it names', () => {
    const si = read('jacket');
    expect(si.categories).toEqual([
      category("Women's Clothing > Outerwear", 'synonym', 'jacket'),
      category("Men's Clothing > Jackets", 'name', 'jacket'),
    ]);
    expect(si.excludedL1).toEqual([]);
    expect(paths(read('trainers'))).toEqual(['Footwear > Running Shoes', 'Footwear > Sneakers']);
  });

  it('...and the audience narrows it', () => {
    const his = read('warm jacket for my husband');
    expect(his.categories).toEqual([category("Men's Clothing > Jackets", 'name', 'jacket')]);
    expect(his.excludedL1).toEqual(["Women's Clothing"]);
    expect(his.keywords).toEqual(['warm', 'jacket']);
    const hers = read('coat for my wife');
    expect(hers.categories).toEqual([category("Women's Clothing > Outerwear", 'synonym', 'coat')]);
    expect(hers.excludedL1).toEqual(["Men's Clothing"]);
  });

  it('what the text names outright is never ruled out by the audience', () => {
    const si = read('dress for my husband');
    expect(si.categories).toEqual([category("Women's Clothing > Dresses", 'name', 'dress')]);
    expect(si.audience).toEqual({ label: 'men', phrase: 'for my husband', age: null });
    expect(si.excludedL1).toEqual([]);
  });

  it('a small child narrows an L1 to the child-sized L2', () => {
    expect(read('shoes for my son').categories).toEqual([category("Footwear > Kids' Shoes", 'synonym', 'shoes')]);
    expect(read('clothes for a newborn').categories).toEqual([category('Baby & Kids > Baby Clothing', 'synonym', 'clothes')]);
    expect(paths(read('clothes'))).toEqual(["Women's Clothing", "Men's Clothing"]);
  });

  it('filler is not a category: "top rated" does not name Tops & Blouses, "black" is not "block"', () => {
    const si = read('top rated tops');
    expect(si.keywords).toEqual(['tops']);
    expect(si.categories).toEqual([category("Women's Clothing > Tops & Blouses", 'name', 'tops')]);
    expect(read('top 10 gifts for dad').categories).toEqual([]);
    expect(read('black dress').categories).toEqual([category("Women's Clothing > Dresses", 'name', 'dress')]);
    expect(read('can i get a car phone mount').categories).toEqual([
      category('Automotive > Car Electronics', 'synonym', 'car phone mount'),
    ]);
  });

  it('every shopper synonym of every taxonomy L2 resolves to it on its own', () => {
    for (const l1 of TAXONOMY) {
      for (const l2 of l1.children) {
        const words = SHOPPER_SYNONYMS[l2.name];
        expect(words?.length, l2.name).toBeGreaterThan(0);
        for (const w of words ?? []) expect(paths(read(w)), `${w} → ${l2.name}`).toContain(`${l1.name} > ${l2.name}`);
      }
    }
  });

  it('neighbouring categories read as one noun phrase: the last noun is the product', () => {
    expect(read('vitamin c face serum').categories).toEqual([category('Beauty & Personal Care > Skincare', 'synonym', 'face serum')]);
    expect(read('coffee mug').categories).toEqual([category('Sports & Outdoors > Drinkware', 'synonym', 'mug')]);
    // An L1 before it scopes rather than describes: both stay.
    expect(paths(read('dog jacket'))).toEqual(["Women's Clothing > Outerwear", "Men's Clothing > Jackets", 'Pet Supplies']);
  });

  it('after a preposition a category is a use or a place', () => {
    expect(read('comfy bed for my senior dog').categories).toEqual([
      category('Pet Supplies > Pet Beds', 'synonym', 'bed for my senior dog'),
    ]);
    expect(paths(read('trainers for the gym'))).toEqual(['Footwear > Running Shoes', 'Footwear > Sneakers']);
    expect(paths(read('phone case with card holder'))).toEqual(['Electronics > Phone Accessories']);
    expect(paths(read('mat for the car'))).toEqual(['Automotive']);
    const wfh = read('cheap laptop stand for working from home');
    expect(wfh.categories).toEqual([category('Computers & Office > Laptop Accessories', 'synonym', 'laptop stand')]);
    // Laptop Accessories' lower quartile.
    expect(wfh.budget).toEqual({ minCents: null, maxCents: 1999, phrase: 'cheap', source: 'word' });
    // "and" starts another product, even after "for my son".
    expect(paths(read('shoes for my son and a jacket'))).toEqual(["Footwear > Kids' Shoes", "Men's Clothing > Jackets"]);
  });

  it('categories a feed added (not in TAXONOMY) resolve by their names', () => {
    const withFeed: CategoryRef[] = [
      ...categories,
      { category_id: 1001, level: 1, name: 'Garden', parent_id: null },
      { category_id: 1002, level: 2, name: 'Planters & Pots', parent_id: 1001 },
    ];
    const si = understandShoppingIntent('cheap planters', {
      categories: withFeed,
      priceQuartiles: new Map([[1002, { p25: 1200, p75: 3000 }]]),
    });
    expect(si.categories).toEqual([category('Garden > Planters & Pots', 'name', 'planters', withFeed)]);
    // Its own catalog prices price the budget word.
    expect(si.budget).toEqual({ minCents: null, maxCents: 1200, phrase: 'cheap', source: 'word' });
    expect(understandShoppingIntent('garden', { categories: withFeed }).categories).toEqual([
      category('Garden', 'name', 'garden', withFeed),
    ]);
  });
});

describe('typos', () => {
  it.each([
    ['headphnes', 'Electronics > Headphones & Earbuds'],
    ['sneekers', 'Footwear > Sneakers'],
    ['jewlery', 'Bags & Accessories > Jewelry'],
    ['necklase', 'Bags & Accessories > Jewelry'],
    ['keybaord', 'Computers & Office > Keyboards & Mice'],
    ['tumbelr', 'Sports & Outdoors > Drinkware'],
  ])('%s → %s, the misspelt word kept as a keyword', (query, path) => {
    const si = read(query);
    expect(si.categories).toEqual([category(path, 'typo', query)]);
    expect(si.keywords).toEqual([query]);
  });

  it('a doubled letter inside a phrase', () => {
    const si = read('runnning shoes');
    expect(si.categories).toEqual([category('Footwear > Running Shoes', 'typo', 'runnning shoes')]);
    expect(si.keywords).toEqual(['runnning', 'shoes']);
  });

  it('short words, real words and other first letters are not corrected', () => {
    expect(read('shue').categories).toEqual([]);
    expect(read('paint').categories).toEqual([]);
    expect(read('dressy').categories).toEqual([]);
    expect(read('bunny').categories).toEqual([]);
    expect(read('rackpack').categories).toEqual([]);
  });

  it('singleEdit names the one slip between two words', () => {
    expect(singleEdit('runing', 'running')).toEqual({ slip: 'missing', at: 3 });
    expect(singleEdit('jewlery', 'jewelry')).toEqual({ slip: 'swapped', at: 3 });
    expect(singleEdit('sneekers', 'sneakers')).toEqual({ slip: 'wrong', at: 3 });
    expect(singleEdit('shoees', 'shoes')).toEqual({ slip: 'extra', at: 4 });
    expect(singleEdit('boots', 'boots')).toBeNull();
    expect(singleEdit('boats', 'bolts')).toEqual({ slip: 'wrong', at: 2 });
    expect(singleEdit('headphones', 'headset')).toBeNull();
  });
});

describe('budget', () => {
  it('from the text, in cents', () => {
    expect(read('running shoes under $50').budget).toEqual({ minCents: null, maxCents: 5000, phrase: 'under $50', source: 'text' });
    const between = read('a tent between 20 and 40 dollars');
    expect(between.budget).toEqual({ minCents: 2000, maxCents: 4000, phrase: 'between 20 and 40 dollars', source: 'text' });
    expect(between.keywords).toEqual(['tent']);
    expect(read('a watch over $300').budget).toEqual({ minCents: 30000, maxCents: null, phrase: 'over $300', source: 'text' });
  });

  it("a cheap word cuts at the category's lower price quartile in the catalog", () => {
    const si = read('cheap headphones');
    expect(si.budget).toEqual({ minCents: null, maxCents: 3394, phrase: 'cheap', source: 'word' });
    expect(si.keywords).toEqual(['headphones']);
    // An L1's quartile covers its L2s.
    expect(read('affordable shoes').budget).toEqual({ minCents: null, maxCents: 4500, phrase: 'affordable', source: 'word' });
    // Outerwear (60.00) and Jackets (70.00): the cut that excludes least.
    expect(read('cheap jacket').budget).toEqual({ minCents: null, maxCents: 7000, phrase: 'cheap', source: 'word' });
  });

  it('a premium word cuts at the upper quartile', () => {
    expect(read('premium skincare').budget).toEqual({ minCents: 3800, maxCents: null, phrase: 'premium', source: 'word' });
    // A hyphenated word is one budget word.
    const si = read('high-end watch');
    expect(si.budget).toEqual({ minCents: 21000, maxCents: null, phrase: 'high-end', source: 'word' });
    expect(si.keywords).toEqual(['watch']);
  });

  it("without a category: the whole catalog's quartiles, or $25 / $100 when none are known", () => {
    expect(read('cheap gift').budget).toEqual({ minCents: null, maxCents: 2200, phrase: 'cheap', source: 'word' });
    expect(read('luxury gift').budget).toEqual({ minCents: 9900, maxCents: null, phrase: 'luxury', source: 'word' });
    expect(understandShoppingIntent('cheap gift', { categories }).budget).toEqual({
      minCents: null,
      maxCents: 2500,
      phrase: 'cheap',
      source: 'word',
    });
    expect(understandShoppingIntent('luxury gift', { categories }).budget).toEqual({
      minCents: 10000,
      maxCents: null,
      phrase: 'luxury',
      source: 'word',
    });
  });

  it('an audience hint prices a budget word too', () => {
    // The runner hint: Running Shoes.
    expect(read('budget-friendly gift for a runner').budget).toEqual({
      minCents: null,
      maxCents: 7699,
      phrase: 'budget-friendly',
      source: 'word',
    });
  });

  it('the text wins over a budget word, which still is no keyword', () => {
    const si = read('cheap air fryer under $60');
    expect(si.budget).toEqual({ minCents: null, maxCents: 6000, phrase: 'under $60', source: 'text' });
    expect(si.keywords).toEqual(['air', 'fryer']);
    expect(si.categories).toEqual([category('Home & Kitchen > Small Kitchen Appliances', 'synonym', 'air fryer')]);
  });
});

describe('audience', () => {
  it.each([
    ['gift for a gamer', 'gamers', 'for a gamer', ['Electronics > Headphones & Earbuds', 'Computers & Office > Keyboards & Mice']],
    ['something for a runner', 'runners', 'for a runner', ['Footwear > Running Shoes']],
    ['ideas for a home cook', 'home cooks', 'for a home cook', ['Home & Kitchen > Cookware', 'Home & Kitchen > Small Kitchen Appliances']],
    [
      'for a college student',
      'students',
      'for a college student',
      ['Computers & Office > Laptop Accessories', 'Computers & Office > Office Supplies'],
    ],
    ['for a frequent flyer', 'travelers', 'for a frequent flyer', ['Bags & Accessories > Backpacks']],
    ['gift for a dog lover', 'dog owners', 'for a dog lover', ['Pet Supplies > Dog Food & Treats', 'Pet Supplies > Pet Toys']],
    ['baby shower gift', 'new parents', 'baby shower', ['Baby & Kids']],
    ['gifts for a gym goer', 'fitness fans', 'for a gym goer', ['Health & Wellness > Fitness Equipment']],
    ['for my baby', 'babies', 'for my baby', ['Baby & Kids']],
  ])('%s → %s, hinting %j', (query, label, phrase, hinted) => {
    const si = read(query);
    expect(si.audience?.label).toBe(label);
    expect(si.audience?.phrase).toBe(phrase);
    expect(si.categories.map((c) => [c.path, c.via, c.term])).toEqual(hinted.map((p) => [p, 'audience', phrase]));
    expect(si.keywords).toEqual([]);
  });

  it('men, women and teens get no guessed categories', () => {
    expect(read('gift for my dad')).toMatchObject({
      categories: [],
      excludedL1: ["Women's Clothing"],
      audience: { label: 'men', phrase: 'for my dad', age: null },
    });
    expect(read('for her')).toMatchObject({
      categories: [],
      excludedL1: ["Men's Clothing"],
      audience: { label: 'women', phrase: 'for her', age: null },
    });
    expect(read('gifts for a teenager')).toMatchObject({
      categories: [],
      excludedL1: [],
      audience: { label: 'teens', phrase: 'for a teenager', age: '13-19' },
    });
  });

  it('hints only when the text names no category', () => {
    const si = read('headphones for a gamer');
    expect(si.categories).toEqual([category('Electronics > Headphones & Earbuds', 'name', 'headphones')]);
    expect(si.audience?.label).toBe('gamers');
  });

  it('stated ages set the life stage', () => {
    expect(read('for a 15-year-old girl')).toMatchObject({
      audience: { label: 'teens', phrase: 'for a 15-year-old girl', age: '13-19' },
      excludedL1: ["Men's Clothing"],
      categories: [],
      keywords: [],
    });
    expect(read('toys for an 18 month old').audience).toEqual({ label: 'babies', phrase: 'for an 18 month old', age: '0-2' });
    // A grown son is a man: the stated age outranks "son".
    expect(read('gift for my 30 year old son')).toMatchObject({
      audience: { label: 'men', phrase: 'for my 30 year old son', age: null },
      categories: [],
    });
  });

  it('"her" before a person is a possessive', () => {
    expect(read('gift for her son')).toMatchObject({
      audience: { label: 'kids', phrase: 'for her son', age: '3-12' },
      excludedL1: ["Women's Clothing"],
    });
  });

  it('an interest outranks the stage and gender it comes with, which still set age and exclusions', () => {
    const si = read('gift for my 10 year old son who loves running');
    expect(si.audience).toEqual({ label: 'runners', phrase: 'running', age: '3-12' });
    expect(si.excludedL1).toEqual(["Women's Clothing"]);
    expect(si.categories).toEqual([category('Footwear > Running Shoes', 'audience', 'running')]);
    // An activity describes the product too: it stays a keyword.
    expect(si.keywords).toEqual(['running']);
  });

  it('an activity word stays a keyword, a person does not', () => {
    const si = read('best gaming mouse for my boyfriend');
    expect(si.keywords).toEqual(['gaming', 'mouse']);
    expect(si.audience).toEqual({ label: 'gamers', phrase: 'gaming', age: null });
    expect(si.excludedL1).toEqual(["Women's Clothing"]);
    expect(si.categories).toEqual([category('Computers & Office > Keyboards & Mice', 'name', 'mouse')]);
  });
});

describe('region', () => {
  it('the parameter wins, upper-cased, and the text region is still no keyword', () => {
    const si = read('yoga mat for someone in the UK', 'ca');
    expect(si.region).toEqual({ code: 'CA', source: 'param', phrase: null });
    expect(si.keywords).toEqual(['yoga', 'mat']);
  });

  it('from the text otherwise', () => {
    expect(read('yoga mat for someone in the UK').region).toEqual({ code: 'GB', source: 'text', phrase: 'in the UK' });
    expect(read('headphones shipped to the US', null).region).toEqual({ code: 'US', source: 'text', phrase: 'to the US' });
    expect(read('a board game for us to play').region).toBeNull();
  });
});

describe('memoised vocabulary', () => {
  it('reads the same way on every call with the same table', () => {
    const first = read('cheap earrings for my sister');
    expect(read('cheap earrings for my sister')).toEqual(first);
    expect(first.categories).toEqual([category('Bags & Accessories > Jewelry', 'synonym', 'earrings')]);
    expect(first.budget).toEqual({ minCents: null, maxCents: 2300, phrase: 'cheap', source: 'word' });
  });
});
