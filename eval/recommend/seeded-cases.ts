import type { SeededCase } from './cases';

/**
 * Shopper sentences over the seeded (generated) catalog, graded as test/recommend-quality.cases.ts
 * grades its own (a different set: needs, attributes, brands and words that test does not use): a
 * card is right when its category is one the shopper would accept ("L1" or "L1 > L2", names as in
 * src/catalog/taxonomy.ts), its USD price is within the stated budget ("cheap" read as the price a
 * shopper of that kind of product would call cheap) and it ships to the named region. No `accept`:
 * nothing in the seeded catalog fits (it sells no furniture, tyres, tickets or animals).
 */
export const SEEDED_CASES: SeededCase[] = [
  // ---- needs: what it is for ----
  { query: 'something to keep my coffee hot on a hike', kind: 'need', accept: { categories: ['Sports & Outdoors > Drinkware'] } },
  {
    query: 'my back hurts from sitting at my desk all day',
    kind: 'need',
    accept: { categories: ['Computers & Office > Desk Furniture', 'Health & Wellness > Massage & Recovery'] },
  },
  {
    query: "I can't sleep because of the street noise",
    kind: 'need',
    accept: { categories: ['Health & Wellness > Sleep & Relaxation', 'Baby & Kids > Nursery'] },
  },
  { query: 'keep my phone charged on a long flight', kind: 'need', accept: { categories: ['Electronics > Phone Accessories'] } },
  { query: 'keep my dog busy while I am at work', kind: 'need', accept: { categories: ['Pet Supplies > Pet Toys'] } },
  { query: 'my cat keeps scratching the couch', kind: 'need', accept: { categories: ['Pet Supplies > Cat Supplies'] } },
  { query: 'make smoothies every morning', kind: 'need', accept: { categories: ['Home & Kitchen > Small Kitchen Appliances'] } },
  { query: 'start lifting weights at home', kind: 'need', accept: { categories: ['Health & Wellness > Fitness Equipment'] } },
  {
    query: 'stay dry on my bike commute',
    kind: 'need',
    accept: { categories: ["Men's Clothing > Jackets", "Women's Clothing > Outerwear", 'Sports & Outdoors > Cycling'] },
  },
  { query: "see who's at the front door from my phone", kind: 'need', accept: { categories: ['Electronics > Smart Home'] } },
  { query: 'sort out my messy closet', kind: 'need', accept: { categories: ['Home & Kitchen > Storage & Organization'] } },
  {
    query: 'my car is always full of crumbs',
    kind: 'need',
    accept: { categories: ['Automotive > Car Electronics', 'Automotive > Interior Accessories', 'Home & Kitchen > Cleaning Supplies'] },
  },
  {
    query: 'help my toddler sleep through the night',
    kind: 'need',
    accept: { categories: ['Baby & Kids > Nursery', 'Baby & Kids > Baby Clothing', 'Health & Wellness > Sleep & Relaxation'] },
  },
  { query: 'cut the glare when I drive', kind: 'need', accept: { categories: ['Bags & Accessories > Sunglasses'] } },
  { query: 'brighten my dull skin', kind: 'need', accept: { categories: ['Beauty & Personal Care > Skincare'] } },
  {
    query: 'tame my frizzy hair',
    kind: 'need',
    accept: { categories: ['Beauty & Personal Care > Hair Care', 'Beauty & Personal Care > Beauty Tools'] },
  },
  {
    query: 'my feet hurt after long runs',
    kind: 'need',
    accept: { categories: ['Footwear > Running Shoes', 'Footwear > Sandals & Slides', 'Health & Wellness > Massage & Recovery'] },
  },
  {
    query: 'carry my laptop to class',
    kind: 'need',
    accept: { categories: ['Bags & Accessories > Backpacks', 'Computers & Office > Laptop Accessories'] },
  },
  { query: 'light up the campsite at night', kind: 'need', accept: { categories: ['Sports & Outdoors > Camping Gear'] } },

  // ---- synonyms and everyday words ----
  {
    query: 'trainers with lots of cushioning',
    kind: 'synonym',
    accept: { categories: ['Footwear > Running Shoes', 'Footwear > Sneakers'] },
  },
  { query: 'hoover', kind: 'synonym', accept: { categories: ['Home & Kitchen > Cleaning Supplies', 'Electronics > Smart Home'] } },
  { query: 'mobile charger', kind: 'synonym', accept: { categories: ['Electronics > Phone Accessories'] } },
  { query: 'speaker for the telly', kind: 'synonym', accept: { categories: ['Electronics > Portable Speakers'] } },
  { query: 'duvet', kind: 'synonym', accept: { categories: ['Home & Kitchen > Bedding'] } },
  { query: 'pushchair', kind: 'synonym', accept: { categories: ['Baby & Kids > Strollers & Car Seats'] } },
  {
    query: 'jogging bottoms',
    kind: 'synonym',
    accept: { categories: ["Men's Clothing > Jeans & Pants", "Women's Clothing > Activewear", "Women's Clothing > Loungewear"] },
  },
  { query: 'flip-flops for the pool', kind: 'synonym', accept: { categories: ['Footwear > Sandals & Slides'] } },
  { query: 'shades for the beach', kind: 'synonym', accept: { categories: ['Bags & Accessories > Sunglasses'] } },
  { query: 'jammies for my wife', kind: 'synonym', accept: { categories: ["Women's Clothing > Loungewear"] } },
  { query: 'wellies for my little one', kind: 'synonym', accept: { categories: ["Footwear > Kids' Shoes"] } },
  { query: 'frying pan', kind: 'synonym', accept: { categories: ['Home & Kitchen > Cookware'] } },

  // ---- attributes ----
  { query: 'waterproof trail running shoes', kind: 'attribute', accept: { categories: ['Footwear > Running Shoes'] } },
  { query: 'noise cancelling headphones for flights', kind: 'attribute', accept: { categories: ['Electronics > Headphones & Earbuds'] } },
  { query: '27 inch monitor for gaming', kind: 'attribute', accept: { categories: ['Computers & Office > Monitors'] } },
  { query: 'vegan leather tote bag', kind: 'attribute', accept: { categories: ['Bags & Accessories > Handbags'] } },
  { query: 'organic cotton sheet set', kind: 'attribute', accept: { categories: ['Home & Kitchen > Bedding'] } },
  { query: 'enameled dutch oven', kind: 'attribute', accept: { categories: ['Home & Kitchen > Cookware'] } },
  { query: '40 oz insulated tumbler', kind: 'attribute', accept: { categories: ['Sports & Outdoors > Drinkware'] } },
  { query: 'polarized sunglasses', kind: 'attribute', accept: { categories: ['Bags & Accessories > Sunglasses'] } },
  { query: 'RFID blocking wallet', kind: 'attribute', accept: { categories: ['Bags & Accessories > Wallets'] } },
  { query: 'sterling silver hoop earrings', kind: 'attribute', accept: { categories: ['Bags & Accessories > Jewelry'] } },
  { query: '4K action camera', kind: 'attribute', accept: { categories: ['Electronics > Cameras & Drones'] } },
  { query: 'grain-free dog treats', kind: 'attribute', accept: { categories: ['Pet Supplies > Dog Food & Treats'] } },
  {
    query: 'sugar-free electrolyte powder',
    kind: 'attribute',
    accept: { categories: ['Health & Wellness > Vitamins & Supplements', 'Food & Beverage > Beverages'] },
  },
  { query: 'electric standing desk', kind: 'attribute', accept: { categories: ['Computers & Office > Desk Furniture'] } },

  // ---- audiences ----
  { query: 'gift for a new dad', kind: 'audience', accept: { categories: ['Baby & Kids'] } },
  { query: 'stocking stuffer for a 10 year old', kind: 'audience', accept: { categories: ['Toys & Games'] } },
  {
    query: 'present for my gran who loves baking',
    kind: 'audience',
    accept: { categories: ['Food & Beverage > Sweets & Baking', 'Home & Kitchen > Cookware', 'Home & Kitchen > Small Kitchen Appliances'] },
  },
  {
    query: 'something for my sister who just started running',
    kind: 'audience',
    accept: { categories: ['Footwear > Running Shoes', "Women's Clothing > Activewear", 'Electronics > Wearables'] },
  },
  { query: 'gift for a cat lover', kind: 'audience', accept: { categories: ['Pet Supplies > Cat Supplies', 'Pet Supplies > Pet Toys'] } },
  {
    query: 'my teenage son is really into gaming',
    kind: 'audience',
    accept: {
      categories: ['Electronics > Headphones & Earbuds', 'Computers & Office > Keyboards & Mice', 'Computers & Office > Monitors'],
    },
  },

  // ---- budgets ----
  { query: 'smartwatch under $100', kind: 'budget', accept: { categories: ['Electronics > Wearables'], maxPrice: 100 } },
  { query: 'dutch oven under 80 dollars', kind: 'budget', accept: { categories: ['Home & Kitchen > Cookware'], maxPrice: 80 } },
  { query: 'robot vacuum for less than $250', kind: 'budget', accept: { categories: ['Electronics > Smart Home'], maxPrice: 250 } },
  {
    query: 'yoga mat between $20 and $50',
    kind: 'budget',
    accept: { categories: ['Sports & Outdoors > Yoga & Pilates'], minPrice: 20, maxPrice: 50 },
  },
  { query: 'kids scooter under 60', kind: 'budget', accept: { categories: ['Toys & Games > Outdoor Play'], maxPrice: 60 } },
  { query: 'cheap phone case', kind: 'budget', accept: { categories: ['Electronics > Phone Accessories'], maxPrice: 20 } },
  { query: 'luxury perfume', kind: 'budget', accept: { categories: ['Beauty & Personal Care > Fragrance'], minPrice: 60 } },

  // ---- typos ----
  { query: 'blendr', kind: 'typo', accept: { categories: ['Home & Kitchen > Small Kitchen Appliances'] } },
  { query: 'moisturiser for sensitive skin', kind: 'typo', accept: { categories: ['Beauty & Personal Care > Skincare'] } },
  { query: 'vaccum cleaner', kind: 'typo', accept: { categories: ['Home & Kitchen > Cleaning Supplies', 'Electronics > Smart Home'] } },
  { query: 'headfones for running', kind: 'typo', accept: { categories: ['Electronics > Headphones & Earbuds'] } },
  { query: 'silk pillowcse', kind: 'typo', accept: { categories: ['Home & Kitchen > Bedding'] } },
  { query: 'labtop stand', kind: 'typo', accept: { categories: ['Computers & Office > Laptop Accessories'] } },
  { query: 'sleping bag', kind: 'typo', accept: { categories: ['Sports & Outdoors > Camping Gear'] } },

  // ---- regions ----
  {
    query: 'air fryer, delivered to Japan',
    kind: 'region',
    accept: { categories: ['Home & Kitchen > Small Kitchen Appliances'], region: 'JP' },
  },
  { query: 'dog bed', region: 'AU', kind: 'region', accept: { categories: ['Pet Supplies > Pet Beds'], region: 'AU' } },
  { query: 'protein bars that ship to Germany', kind: 'region', accept: { categories: ['Food & Beverage > Snacks'], region: 'DE' } },
  { query: 'wireless earbuds', region: 'BR', kind: 'region', accept: { categories: ['Electronics > Headphones & Earbuds'], region: 'BR' } },

  // ---- brands of the seeded catalog ----
  { query: 'Kestrel running shoes', kind: 'brand', accept: { categories: ['Footwear > Running Shoes'] } },
  { query: 'Glowlab serum', kind: 'brand', accept: { categories: ['Beauty & Personal Care > Skincare'] } },
  { query: 'Barkley chew toy', kind: 'brand', accept: { categories: ['Pet Supplies > Pet Toys'] } },
  { query: 'Basecamp Co tent', kind: 'brand', accept: { categories: ['Sports & Outdoors > Camping Gear'] } },
  { query: 'Sonique headphones', kind: 'brand', accept: { categories: ['Electronics > Headphones & Earbuds'] } },

  // ---- mixed ----
  {
    query: 'waterproof hiking boots for my husband under $150',
    kind: 'mixed',
    accept: { categories: ['Footwear > Boots'], maxPrice: 150 },
  },
  {
    query: 'cheap wireless earbuds for the gym',
    kind: 'mixed',
    accept: { categories: ['Electronics > Headphones & Earbuds'], maxPrice: 60 },
  },
  {
    query: 'gift for my wife who loves coffee, around $30',
    kind: 'mixed',
    accept: { categories: ['Food & Beverage > Coffee & Tea', 'Sports & Outdoors > Drinkware'], minPrice: 24, maxPrice: 36 },
  },

  // ---- nothing in the seeded catalog fits ----
  { query: 'a sofa for my living room', kind: 'none' },
  { query: 'car tyres', kind: 'none' },
  { query: 'lawn mower', kind: 'none' },
  { query: 'concert tickets', kind: 'none' },
  { query: 'a puppy', kind: 'none' },
  { query: 'guitar strings', kind: 'none' },
  { query: 'xkcd plmq', kind: 'none' },
];
