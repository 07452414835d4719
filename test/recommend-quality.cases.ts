/**
 * Shopper intents for the GET /v1/recommend quality check (precision@3, limit=3).
 *
 * Each case is a query a real shopper might type, plus what that shopper would accept, written
 * from the shopper's point of view and independent of any recommender implementation:
 * - a returned product is relevant when its category matches one of `accept.categories`
 *   ("L1" = any L2 under it, or "L1 > L2", names exactly as in TAXONOMY), its USD price is within
 *   [minPrice, maxPrice] (inclusive, when given), and, when `accept.region` is set, it ships there
 *   (region_allow empty or containing that code);
 * - "cheap" / "budget" wording is turned into the price cap a shopper would call cheap for that
 *   kind of product; "around $X" into a band either side of X;
 * - `region` (top level) is sent as the region query parameter; a region named only in the text
 *   ("ship to Canada") appears in `accept.region` but not as the parameter;
 * - nonsense inputs have no `accept`: nothing returned for them can be relevant.
 * Every non-nonsense case was checked against the seeded catalog to have at least 10 qualifying
 * products, so a correct engine can reach precision 1.
 */

export type QualityKind = 'plain' | 'synonym' | 'typo' | 'budget' | 'audience' | 'region' | 'mixed' | 'nonsense';

export interface QualityCase {
  query: string;
  /** Sent as the region query parameter. */
  region?: string;
  kind: QualityKind;
  /** What the shopper accepts; absent only for nonsense. */
  accept?: {
    /** "L1 name" (any L2 under it) or "L1 name > L2 name", exactly as in TAXONOMY. */
    categories: string[];
    minPrice?: number; // USD, inclusive
    maxPrice?: number; // USD, inclusive
    /** A product is acceptable only if it ships there (region_allow empty or containing it). */
    region?: string;
  };
}

export const QUALITY_CASES: QualityCase[] = [
  // ---- plain: the product named the way the catalog names it, one or more per L1 ----
  { query: 'wireless earbuds', kind: 'plain', accept: { categories: ['Electronics > Headphones & Earbuds'] } },
  { query: 'air fryer', kind: 'plain', accept: { categories: ['Home & Kitchen > Small Kitchen Appliances'] } },
  { query: 'yoga mat', kind: 'plain', accept: { categories: ['Sports & Outdoors > Yoga & Pilates'] } },
  { query: 'cat tree', kind: 'plain', accept: { categories: ['Pet Supplies > Cat Supplies'] } },
  { query: 'mechanical keyboard', kind: 'plain', accept: { categories: ['Computers & Office > Keyboards & Mice'] } },
  { query: 'vitamin c face serum', kind: 'plain', accept: { categories: ['Beauty & Personal Care > Skincare'] } },
  { query: 'floral midi dress', kind: 'plain', accept: { categories: ["Women's Clothing > Dresses"] } },
  { query: "men's pullover hoodie", kind: 'plain', accept: { categories: ["Men's Clothing > Hoodies & Sweatshirts"] } },
  { query: 'trail running shoes', kind: 'plain', accept: { categories: ['Footwear > Running Shoes'] } },
  { query: 'laptop backpack', kind: 'plain', accept: { categories: ['Bags & Accessories > Backpacks'] } },
  { query: 'electric toothbrush', kind: 'plain', accept: { categories: ['Health & Wellness > Oral Care'] } },
  { query: 'camping tent', kind: 'plain', accept: { categories: ['Sports & Outdoors > Camping Gear'] } },
  { query: 'magnetic tiles', kind: 'plain', accept: { categories: ['Toys & Games > Building Sets'] } },
  { query: 'baby monitor', kind: 'plain', accept: { categories: ['Baby & Kids > Nursery'] } },
  { query: 'whole bean coffee', kind: 'plain', accept: { categories: ['Food & Beverage > Coffee & Tea'] } },
  { query: 'portable tire inflator', kind: 'plain', accept: { categories: ['Automotive > Car Electronics'] } },
  { query: 'cast iron skillet', kind: 'plain', accept: { categories: ['Home & Kitchen > Cookware'] } },
  { query: 'massage gun', kind: 'plain', accept: { categories: ['Health & Wellness > Massage & Recovery'] } },
  { query: 'robot vacuum', kind: 'plain', accept: { categories: ['Electronics > Smart Home'] } },
  { query: 'gold hoop earrings', kind: 'plain', accept: { categories: ['Bags & Accessories > Jewelry'] } },
  { query: 'high waist leggings', kind: 'plain', accept: { categories: ["Women's Clothing > Activewear"] } },
  { query: 'chili crisp', kind: 'plain', accept: { categories: ['Food & Beverage > Pantry'] } },
  { query: 'car wash kit', kind: 'plain', accept: { categories: ['Automotive > Car Care'] } },

  // ---- synonyms and everyday words that product titles don't use ----
  { query: 'earphones', kind: 'synonym', accept: { categories: ['Electronics > Headphones & Earbuds'] } },
  { query: 'trainers for the gym', kind: 'synonym', accept: { categories: ['Footwear > Running Shoes', 'Footwear > Sneakers'] } },
  { query: 'cologne', kind: 'synonym', accept: { categories: ['Beauty & Personal Care > Fragrance'] } },
  { query: 'sunnies', kind: 'synonym', accept: { categories: ['Bags & Accessories > Sunglasses'] } },
  { query: 'skin care for dry skin', kind: 'synonym', accept: { categories: ['Beauty & Personal Care > Skincare'] } },
  { query: 'pram', kind: 'synonym', accept: { categories: ['Baby & Kids > Strollers & Car Seats'] } },
  { query: 'nappy bag', kind: 'synonym', accept: { categories: ['Baby & Kids > Diapering'] } },
  { query: 'robot hoover', kind: 'synonym', accept: { categories: ['Electronics > Smart Home'] } },
  { query: 'rucksack for travelling', kind: 'synonym', accept: { categories: ['Bags & Accessories > Backpacks'] } },
  { query: 'portable charger for my phone', kind: 'synonym', accept: { categories: ['Electronics > Phone Accessories'] } },
  { query: 'step counter', kind: 'synonym', accept: { categories: ['Electronics > Wearables'] } },
  { query: 'something to stop my cat scratching the sofa', kind: 'synonym', accept: { categories: ['Pet Supplies > Cat Supplies'] } },
  { query: "men's jumper", kind: 'synonym', accept: { categories: ["Men's Clothing > Hoodies & Sweatshirts"] } },

  // ---- typos and spelling variants ----
  { query: 'runing shoes', kind: 'typo', accept: { categories: ['Footwear > Running Shoes'] } },
  { query: 'hedphones', kind: 'typo', accept: { categories: ['Electronics > Headphones & Earbuds'] } },
  { query: 'moisturiser', kind: 'typo', accept: { categories: ['Beauty & Personal Care > Skincare'] } },
  { query: 'mosturizer for oily skin', kind: 'typo', accept: { categories: ['Beauty & Personal Care > Skincare'] } },
  { query: 'blutooth speaker', kind: 'typo', accept: { categories: ['Electronics > Portable Speakers'] } },
  { query: 'expresso machine', kind: 'typo', accept: { categories: ['Home & Kitchen > Small Kitchen Appliances'] } },
  { query: 'sunglases', kind: 'typo', accept: { categories: ['Bags & Accessories > Sunglasses'] } },
  { query: 'electric kettel', kind: 'typo', accept: { categories: ['Home & Kitchen > Small Kitchen Appliances'] } },
  { query: 'mechanicl keybord', kind: 'typo', accept: { categories: ['Computers & Office > Keyboards & Mice'] } },
  { query: 'dumbells', kind: 'typo', accept: { categories: ['Health & Wellness > Fitness Equipment'] } },
  { query: 'protien bars', kind: 'typo', accept: { categories: ['Food & Beverage > Snacks'] } },
  { query: 'ergonomic chiar', kind: 'typo', accept: { categories: ['Computers & Office > Desk Furniture'] } },

  // ---- budgets ----
  { query: 'wireless earbuds under $50', kind: 'budget', accept: { categories: ['Electronics > Headphones & Earbuds'], maxPrice: 50 } },
  {
    query: 'yoga mat between 20 and 40 dollars',
    kind: 'budget',
    accept: { categories: ['Sports & Outdoors > Yoga & Pilates'], minPrice: 20, maxPrice: 40 },
  },
  {
    query: 'coffee beans for less than 30 bucks',
    kind: 'budget',
    accept: { categories: ['Food & Beverage > Coffee & Tea'], maxPrice: 30 },
  },
  { query: 'cheap running shoes', kind: 'budget', accept: { categories: ['Footwear > Running Shoes'], maxPrice: 90 } },
  { query: 'cheap headphones', kind: 'budget', accept: { categories: ['Electronics > Headphones & Earbuds'], maxPrice: 50 } },
  { query: 'cheap sunglasses', kind: 'budget', accept: { categories: ['Bags & Accessories > Sunglasses'], maxPrice: 30 } },
  {
    query: 'premium noise cancelling headphones over $150',
    kind: 'budget',
    accept: { categories: ['Electronics > Headphones & Earbuds'], minPrice: 150 },
  },
  { query: 'sneakers around $100', kind: 'budget', accept: { categories: ['Footwear > Sneakers'], minPrice: 80, maxPrice: 120 } },
  { query: 'air fryer under $80', kind: 'budget', accept: { categories: ['Home & Kitchen > Small Kitchen Appliances'], maxPrice: 80 } },
  { query: 'luxury watch over $200', kind: 'budget', accept: { categories: ['Bags & Accessories > Watches'], minPrice: 200 } },
  { query: 'perfume under 50 dollars', kind: 'budget', accept: { categories: ['Beauty & Personal Care > Fragrance'], maxPrice: 50 } },
  { query: 'monitor under $200', kind: 'budget', accept: { categories: ['Computers & Office > Monitors'], maxPrice: 200 } },
  {
    query: 'budget massage gun under 100',
    kind: 'budget',
    accept: { categories: ['Health & Wellness > Massage & Recovery'], maxPrice: 100 },
  },

  // ---- audiences: who it is for ----
  { query: 'running shoes for my dad', kind: 'audience', accept: { categories: ['Footwear > Running Shoes'] } },
  {
    query: 'gift for my mom who loves yoga',
    kind: 'audience',
    accept: { categories: ['Sports & Outdoors > Yoga & Pilates', "Women's Clothing > Activewear"] },
  },
  { query: 'toys for a 5 year old', kind: 'audience', accept: { categories: ['Toys & Games'] } },
  { query: 'something for a new baby', kind: 'audience', accept: { categories: ['Baby & Kids', 'Toys & Games > Plush Toys'] } },
  { query: 'headphones for a teen gamer', kind: 'audience', accept: { categories: ['Electronics > Headphones & Earbuds'] } },
  { query: 'jacket for my husband', kind: 'audience', accept: { categories: ["Men's Clothing > Jackets"] } },
  { query: 'shoes for my toddler', kind: 'audience', accept: { categories: ["Footwear > Kids' Shoes"] } },
  { query: 'dress for my wife', kind: 'audience', accept: { categories: ["Women's Clothing > Dresses"] } },
  { query: 'chew toy for my puppy', kind: 'audience', accept: { categories: ['Pet Supplies > Pet Toys'] } },
  { query: 'gift for my dad who likes fishing', kind: 'audience', accept: { categories: ['Sports & Outdoors > Fishing'] } },
  {
    query: 'watch for my boyfriend',
    kind: 'audience',
    accept: { categories: ['Bags & Accessories > Watches', 'Electronics > Wearables'] },
  },
  { query: 'hoodie for my teenage son', kind: 'audience', accept: { categories: ["Men's Clothing > Hoodies & Sweatshirts"] } },
  { query: 'comfy bed for my senior dog', kind: 'audience', accept: { categories: ['Pet Supplies > Pet Beds'] } },

  // ---- regions: as the parameter, or named in the text ----
  { query: 'wireless earbuds', region: 'DE', kind: 'region', accept: { categories: ['Electronics > Headphones & Earbuds'], region: 'DE' } },
  { query: 'yoga mat', region: 'GB', kind: 'region', accept: { categories: ['Sports & Outdoors > Yoga & Pilates'], region: 'GB' } },
  { query: 'baby stroller', region: 'FR', kind: 'region', accept: { categories: ['Baby & Kids > Strollers & Car Seats'], region: 'FR' } },
  { query: 'dog bed', region: 'MX', kind: 'region', accept: { categories: ['Pet Supplies > Pet Beds'], region: 'MX' } },
  { query: 'robot vacuum', region: 'SG', kind: 'region', accept: { categories: ['Electronics > Smart Home'], region: 'SG' } },
  {
    query: 'mechanical keyboard',
    region: 'JP',
    kind: 'region',
    accept: { categories: ['Computers & Office > Keyboards & Mice'], region: 'JP' },
  },
  {
    query: 'air fryer that ships to Canada',
    kind: 'region',
    accept: { categories: ['Home & Kitchen > Small Kitchen Appliances'], region: 'CA' },
  },
  { query: 'sunglasses delivered to Australia', kind: 'region', accept: { categories: ['Bags & Accessories > Sunglasses'], region: 'AU' } },
  { query: 'running shoes shipping to Brazil', kind: 'region', accept: { categories: ['Footwear > Running Shoes'], region: 'BR' } },
  {
    query: 'whole bean coffee delivered in Italy',
    kind: 'region',
    accept: { categories: ['Food & Beverage > Coffee & Tea'], region: 'IT' },
  },
  {
    query: 'camping tent, ship to the Netherlands',
    kind: 'region',
    accept: { categories: ['Sports & Outdoors > Camping Gear'], region: 'NL' },
  },

  // ---- mixed: product + budget / audience / region / typo together ----
  {
    query: 'waterproof hiking boots under $150 in the UK',
    kind: 'mixed',
    accept: { categories: ['Footwear > Boots'], maxPrice: 150, region: 'GB' },
  },
  {
    query: 'cheap wireless earbuds for my son, ship to Canada',
    kind: 'mixed',
    accept: { categories: ['Electronics > Headphones & Earbuds'], maxPrice: 50, region: 'CA' },
  },
  {
    query: 'gift for my wife who loves coffee under $40',
    kind: 'mixed',
    accept: { categories: ['Food & Beverage > Coffee & Tea', 'Sports & Outdoors > Drinkware'], maxPrice: 40 },
  },
  { query: 'birthday present for a 7 year old under 30 dollars', kind: 'mixed', accept: { categories: ['Toys & Games'], maxPrice: 30 } },
  {
    query: 'dog toys under $20 shipping to Germany',
    kind: 'mixed',
    accept: { categories: ['Pet Supplies > Pet Toys'], maxPrice: 20, region: 'DE' },
  },
  {
    query: 'noise cancelling headphones for my commute under 200',
    region: 'FR',
    kind: 'mixed',
    accept: { categories: ['Electronics > Headphones & Earbuds'], maxPrice: 200, region: 'FR' },
  },
  {
    query: 'yoga mat for my girlfriend under 40 in Australia',
    kind: 'mixed',
    accept: { categories: ['Sports & Outdoors > Yoga & Pilates'], maxPrice: 40, region: 'AU' },
  },
  {
    query: 'blutooth speaker under 50 for the beach',
    kind: 'mixed',
    accept: { categories: ['Electronics > Portable Speakers'], maxPrice: 50 },
  },
  { query: 'kids rain boots under 40', kind: 'mixed', accept: { categories: ["Footwear > Kids' Shoes"], maxPrice: 40 } },
  {
    query: 'cheap laptop stand for working from home, ship to Spain',
    kind: 'mixed',
    accept: { categories: ['Computers & Office > Laptop Accessories'], maxPrice: 35, region: 'ES' },
  },

  // ---- nonsense: no product intent at all ----
  { query: 'asdfgh', kind: 'nonsense' },
  { query: 'qwertyuiop zxcv', kind: 'nonsense' },
  { query: '!!!???', kind: 'nonsense' },
  { query: 'lorem ipsum dolor', kind: 'nonsense' },
  { query: 'zxq vbnm plok', kind: 'nonsense' },
];
