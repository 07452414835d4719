import type { RealCase } from './cases';

/**
 * Shopper sentences over the real stores of eval/catalogs/ (seven merchants, 311 products), in
 * shoppers' words, each with the products that answer it, graded by reading the catalogs:
 *
 * - 2: exactly what was asked (the kind of product and every constraint the sentence states);
 * - 1: acceptable: it does the job but less exactly (a near kind, a looser fit to the need), or it
 *   is out of stock;
 * - not listed: not acceptable, including the right kind of product that breaks a stated
 *   constraint (over the budget, the other gender's, the wrong colour, size, material or brand).
 *
 * No grades: nothing in the stores fits, and the right answer is no match.
 * Products are `${merchant}/${external_id}` (the Shopify Handle, the Merchant Center
 * item_group_id or id, the ACP product id, the CSV id).
 */

const apparel = (h: string) => `partners-apparel/${h}`;
const home = (h: string) => `partners-home/${h}`;
const jewelry = (h: string) => `partners-jewelry/${h}`;
const flower = (id: string) => `ucp-flower-shop/${id}`;
const grocery = (id: string) => `ucp-grocery/${id}`;
const vendure = (id: string) => `vendure-demo/${id}`;
const luma = (...ids: string[]) => ids.map((id) => `luma/${id}`);
const seq = (prefix: string, from: number, to: number, skip: number[] = []) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i)
    .filter((n) => !skip.includes(n))
    .map((n) => `${prefix}${String(n).padStart(2, '0')}`);

/** Products graded 2, then those graded 1 (a key in both keeps 2). */
function g(two: string[], one: string[] = []): Record<string, 1 | 2> {
  return { ...Object.fromEntries(one.map((k) => [k, 1 as const])), ...Object.fromEntries(two.map((k) => [k, 2 as const])) };
}

// ---- groups read off the catalogs --------------------------------------------------------------

const MEN_HOODIES = luma('MH01', 'MH02', 'MH03', 'MH06', 'MH07', 'MH08', 'MH09', 'MH12', 'MH13'); // hooded
const MEN_SWEATSHIRTS = luma('MH04', 'MH05', 'MH10', 'MH11'); // crewneck sweatshirts
const WOMEN_HOODIES = luma('WH01', 'WH02', 'WH04', 'WH05', 'WH06', 'WH07', 'WH08', 'WH09', 'WH10', 'WH11', 'WH12');
const WOMEN_SWEATSHIRTS = luma('WH03');
const MEN_JACKETS = luma(...seq('MJ', 1, 12, [5]));
const WOMEN_JACKETS = luma(...seq('WJ', 1, 12));
const MEN_TEES = luma(...seq('MS', 1, 12));
const WOMEN_TEES = luma(...seq('WS', 1, 12));
const MEN_TANKS = luma(...seq('MT', 1, 12));
const WOMEN_TANKS = luma(...seq('WT', 1, 9));
const SPORTS_BRAS = luma(...seq('WB', 1, 5));
const MEN_PANTS = luma(...seq('MP', 1, 12));
const WOMEN_PANTS = luma(...seq('WP', 1, 13));
const MEN_SHORTS = luma(...seq('MSH', 1, 12));
const WOMEN_SHORTS = luma(...seq('WSH', 1, 12));
const BACKPACKS = luma('24-MB03', '24-MB02', '24-WB06', '24-WB03');
const DUFFLES = luma('24-MB01', '24-UB02', '24-WB07');
const MESSENGERS = luma('24-MB05', '24-MB06', '24-WB04');
const MEN_WATCHES = luma('24-MG01', '24-MG02', '24-MG03', '24-MG04', '24-MG05');
const WOMEN_WATCHES = luma('24-WG01', '24-WG02', '24-WG03', '24-WG09');
const BALLS = luma('24-WG081', '24-WG082', '24-WG083');
const STRAPS = luma('24-WG085', '24-WG086', '24-WG087');
const BANDS = luma('24-UG01', '24-UG02', '24-UG03');
const SOFAS = [home('cream-sofa'), home('grey-sofa'), home('yellow-sofa'), vendure('grey-fabric-sofa'), vendure('leather-sofa')];
const BEDSIDE_TABLES = [home('bedside-table'), vendure('bedside-table')];
const TROWELS = [home('gardening-hand-trowel'), vendure('hand-trowel')];
const POTS = [home('clay-plant-pot'), home('white-ceramic-pot'), flower('pot_ceramic')];
const THROW_PILLOWS = [home('brown-throw-pillows'), home('knitted-throw-pillows')];
const RUNNING_SHOES = ['ultraboost-running-shoe', 'freerun-running-shoe', 'pureboost-running-shoe', 'runx-running-shoe'].map(vendure);
const CAMERAS = [
  'instant-camera',
  'vintage-folding-camera',
  'instamatic-camera',
  'compact-digital-camera',
  'nikkormat-slr-camera',
  'compact-slr-camera',
  'twin-lens-camera',
].map(vendure);
const MONITORS = [vendure('32-inch-monitor'), vendure('curvy-monitor')];
const BRACELETS = ['chain-bracelet', 'leather-anchor', 'bangle-bracelet', 'bangle-bracelet-with-feathers', 'moon-charm-bracelet'].map(
  jewelry,
);
const WOMENS_BRACELETS = ['chain-bracelet', 'bangle-bracelet', 'bangle-bracelet-with-feathers', 'moon-charm-bracelet'].map(jewelry);
const EARRINGS = ['boho-earrings', 'galaxy-earrings', 'looped-earrings', 'guardian-angel-earrings'].map(jewelry);
const NECKLACES = [
  'choker-with-bead',
  'choker-with-gold-pendant',
  'choker-with-triangle',
  'dainty-gold-neclace',
  'dreamcatcher-pendant-necklace',
  'gemstone',
  'gold-bird-necklace',
  'origami-crane-necklace',
  'pretty-gold-necklace',
  'silver-threader-necklace',
  'stylish-summer-neclace',
].map(jewelry);
const BOUQUETS = ['bouquet_roses', 'bouquet_sunflowers', 'bouquet_tulips'].map(flower);
const HOUSEPLANTS = ['spiky-cactus', 'aloe-vera', 'assorted-succulents', 'fern-blechnum-gibbum', 'orchid', 'bonsai-tree'].map(vendure);
const COOKIES = [grocery('BISC-001'), grocery('O-COOKIES-001')];
const CHIPS = [grocery('CHIPS-001'), grocery('SW-CHIPS-001')];
const WATERPROOF_JACKETS = [apparel('navy-sport-jacket'), apparel('zipped-jacket'), ...luma('MJ09', 'WJ10')];
const WATER_RESISTANT_JACKETS = luma('MJ02', 'MJ06', 'MJ10', 'WJ09', 'MH03', 'MH07');

export const REAL_CASES: RealCase[] = [
  // ---- plain: named the way the store names it ----
  { query: 'tent', kind: 'plain', grades: g([vendure('tent')]) },
  { query: 'road bike', kind: 'plain', grades: g([vendure('road-bike')]) },
  { query: 'yoga strap', kind: 'plain', grades: g(STRAPS) },
  { query: 'foam roller', kind: 'plain', grades: g(luma('24-WG088')) },
  { query: 'boxing gloves', kind: 'plain', grades: g([vendure('boxing-gloves')]) },
  { query: 'tripod', kind: 'plain', grades: g([vendure('tripod')]) },
  { query: 'bonsai tree', kind: 'plain', grades: g([vendure('bonsai-tree')]) },
  { query: 'watering can', kind: 'plain', grades: g([home('yellow-watering-can')]) },
  { query: 'vanilla candle', kind: 'plain', grades: g([home('vanilla-candle')]) },
  { query: 'throw pillows', kind: 'plain', grades: g(THROW_PILLOWS) },
  { query: 'bean bag', kind: 'plain', grades: g([home('black-bean-bag')]) },
  {
    query: 'choker necklace',
    kind: 'plain',
    grades: g(['choker-with-bead', 'choker-with-gold-pendant', 'choker-with-triangle'].map(jewelry)),
  },
  { query: 'potato chips', kind: 'plain', grades: g([grocery('CHIPS-001')], [grocery('SW-CHIPS-001')]) },
  { query: 'oat cookies', kind: 'plain', grades: g([grocery('O-COOKIES-001')], [grocery('BISC-001')]) },
  { query: 'fresh strawberries', kind: 'plain', grades: g([grocery('STRAW-001')]) },
  { query: 'bouquet of red roses', kind: 'plain', grades: g([flower('bouquet_roses')]) },
  { query: 'sunflowers', kind: 'plain', grades: g([flower('bouquet_sunflowers')]) },
  { query: 'white orchid', kind: 'plain', grades: g([flower('orchid_white'), vendure('orchid')]) },
  { query: 'wireless mouse', kind: 'plain', grades: g([vendure('cordless-mouse')]) },
  { query: 'gaming pc', kind: 'plain', grades: g([vendure('gaming-pc')]) },
  { query: 'hard drive', kind: 'plain', grades: g([vendure('hard-drive')]) },
  { query: 'ethernet cable', kind: 'plain', grades: g([vendure('ethernet-cable')]) },
  { query: 'instant camera', kind: 'plain', grades: g([vendure('instant-camera')]) },
  { query: 'basketball', kind: 'plain', grades: g([vendure('basketball')]) },
  { query: 'duffle bag', kind: 'plain', grades: g(DUFFLES) },
  { query: 'messenger bag', kind: 'plain', grades: g(MESSENGERS) },
  { query: 'sports bra', kind: 'plain', grades: g(SPORTS_BRAS) },
  {
    query: 'running shorts',
    kind: 'plain',
    grades: g(luma('MSH02', 'WSH04', 'WSH06', 'WSH08', 'WSH10', 'WSH12'), luma('MSH01', 'MSH08', 'WSH01', 'WSH02', 'WSH09', 'WSH11')),
  },
  { query: 'analog watch', kind: 'plain', grades: g(luma('24-MG04', '24-MG05', '24-WG09')) },
  { query: 'leather sofa', kind: 'plain', grades: g([vendure('leather-sofa')]) },
  { query: 'water bottle', kind: 'plain', grades: g(luma('24-UG06')) },
  { query: 'tote bag', kind: 'plain', grades: g(luma('24-WB02', '24-WB05'), luma('24-WB01')) },
  { query: 'capri leggings', kind: 'plain', grades: g(luma('WP07', 'WP08', 'WP09', 'WP11', 'WP12', 'WP13'), luma('WP06')) },

  // ---- synonyms: words for it the catalog does not use ----
  { query: 'couch', kind: 'synonym', grades: g(SOFAS) },
  { query: 'nightstand', kind: 'synonym', grades: g(BEDSIDE_TABLES) },
  { query: 'dresser for the bedroom', kind: 'synonym', grades: g([home('antique-drawers')]) },
  { query: 'chest of drawers', kind: 'synonym', grades: g([home('antique-drawers')]) },
  {
    query: 'sneakers',
    kind: 'synonym',
    grades: g([vendure('allstar-sneakers'), apparel('led-high-tops'), vendure('hi-top-basketball-shoe')], RUNNING_SHOES),
  },
  {
    query: 'trainers',
    kind: 'synonym',
    grades: g([...RUNNING_SHOES, vendure('allstar-sneakers'), vendure('hi-top-basketball-shoe'), apparel('led-high-tops')]),
  },
  { query: 'jumper', kind: 'synonym', grades: g([apparel('yellow-wool-jumper')], [...MEN_SWEATSHIRTS, ...WOMEN_SWEATSHIRTS]) },
  { query: 'sweatpants', kind: 'synonym', grades: g(luma('MP01', 'MP06'), luma('MP03', 'MP07', 'WP13')) },
  { query: 'joggers', kind: 'synonym', grades: g(luma('MP03'), luma('MP01', 'MP06', 'MP07', 'MP04', 'WP13')) },
  {
    query: 'yoga pants',
    kind: 'synonym',
    grades: g(luma('MP08', 'MP10', 'MP12', 'WP01', 'WP02', 'WP10'), luma('WP03', 'WP12', 'WP13', 'WP06')),
  },
  { query: 'singlet for the gym', kind: 'synonym', grades: g(luma('MT05', 'MT06', 'MT08', 'MT10'), [...MEN_TANKS, ...WOMEN_TANKS]) },
  {
    query: 'windbreaker',
    kind: 'synonym',
    grades: g(luma('MJ03'), [...luma('MJ01', 'MJ09', 'WJ10'), apparel('navy-sport-jacket'), apparel('zipped-jacket')]),
  },
  { query: 'raincoat', kind: 'synonym', grades: g(WATERPROOF_JACKETS, WATER_RESISTANT_JACKETS) },
  { query: 'houseplant', kind: 'synonym', grades: g([...HOUSEPLANTS, flower('orchid_white')], [vendure('hanging-plant')]) },
  { query: 'cacti', kind: 'synonym', grades: g([vendure('spiky-cactus')], [vendure('assorted-succulents')]) },
  { query: 'planter', kind: 'synonym', grades: g(POTS, [home('biodegradable-cardboard-pots')]) },
  { query: 'garden spade', kind: 'synonym', grades: g(TROWELS) },
  { query: 'bedside lamp', kind: 'synonym', grades: g([home('copper-light')], [vendure('light-shade')]) },
  { query: 'bed sheets', kind: 'synonym', grades: g([home('white-bed-clothes')]) },
  { query: 'cushions for my sofa', kind: 'synonym', grades: g(THROW_PILLOWS) },
  { query: 'writing desk', kind: 'synonym', grades: g([vendure('wooden-side-desk')]) },
  { query: 'computer screen', kind: 'synonym', grades: g(MONITORS) },
  { query: 'notebook computer', kind: 'synonym', grades: g([vendure('laptop')]) },
  { query: 'more memory for my pc', kind: 'synonym', grades: g([vendure('high-performance-ram')]) },
  { query: 'network cable', kind: 'synonym', grades: g([vendure('ethernet-cable')]) },
  { query: 'mechanical keyboard', kind: 'synonym', grades: g([vendure('clacky-keyboard')]) },
  {
    query: 'film camera',
    kind: 'synonym',
    grades: g(['instamatic-camera', 'nikkormat-slr-camera', 'twin-lens-camera'].map(vendure), [vendure('instant-camera')]),
  },
  { query: 'bicycle', kind: 'synonym', grades: g([vendure('road-bike')]) },
  { query: 'soccer ball', kind: 'synonym', grades: g([vendure('football')]) },
  { query: 'resistance bands', kind: 'synonym', grades: g(BANDS) },
  { query: 'exercise ball', kind: 'synonym', grades: g(BALLS, luma('24-UG07')) },
  { query: 'yoga block', kind: 'synonym', grades: g(luma('24-WG084')) },
  {
    query: 'gym bag',
    kind: 'synonym',
    grades: g(luma('24-MB01', '24-WB01', '24-WB02', '24-WB05'), luma('24-UB02', '24-WB07', '24-MB04', '24-WB03')),
  },
  { query: 'rucksack', kind: 'synonym', grades: g(BACKPACKS, luma('24-MB04')) },
  { query: 'timepiece', kind: 'synonym', grades: g([...MEN_WATCHES, ...WOMEN_WATCHES]) },
  { query: 'fitness tracker', kind: 'synonym', grades: g(luma('24-MG01', '24-MG03', '24-WG02'), luma('24-MG02')) },
  { query: 'crisps', kind: 'synonym', grades: g(CHIPS) },
  { query: 'biscuits', kind: 'synonym', grades: g(COOKIES) },
  { query: 'granola bar', kind: 'synonym', grades: g([grocery('NUTRIBAR-001')]) },
  { query: 'chocolate chip cookies', kind: 'synonym', grades: g([grocery('BISC-001')]) },
  { query: 'tuxedo jacket for a black tie event', kind: 'synonym', grades: g([apparel('blue-silk-tuxedo')]) },
  { query: 'flannel shirt', kind: 'synonym', grades: g([apparel('chequered-red-shirt')]) },
  { query: 'hoody with a kangaroo pocket', kind: 'synonym', grades: g(luma('MH01', 'MH08', 'WH11'), [...MEN_HOODIES, ...WOMEN_HOODIES]) },
  { query: 'pilates ball', kind: 'synonym', grades: g(BALLS) },
  { query: 'wall decor for the living room', kind: 'none' },

  // ---- needs: what it is for, no product named ----
  { query: 'something to keep my coffee hot on a hike', kind: 'none' },
  { query: 'something to carry water on my run', kind: 'need', grades: g(luma('24-UG06')) },
  { query: 'somewhere to sleep when we go camping as a family', kind: 'need', grades: g([vendure('tent')]) },
  { query: 'I need to stay dry walking the dog in the rain', kind: 'need', grades: g(WATERPROOF_JACKETS, WATER_RESISTANT_JACKETS) },
  { query: 'keep cool during hot yoga', kind: 'need', grades: g(luma('WB01', 'WSH05', 'WP06', 'WP10', 'MSH10'), luma('MT05')) },
  { query: 'a bag that fits my laptop and gym clothes', kind: 'need', grades: g(luma('24-WB04', '24-MB05', '24-WB06', '24-MB03')) },
  { query: 'help me do deeper push ups', kind: 'need', grades: g(luma('24-UG05')) },
  { query: 'something to massage sore muscles after a run', kind: 'need', grades: g(luma('24-WG088')) },
  {
    query: 'I want to work out at home without weights',
    kind: 'need',
    grades: g(BANDS, [...luma('24-UG04', '24-UG05'), vendure('skipping-rope'), ...BALLS]),
  },
  { query: 'help with balance and alignment in yoga poses', kind: 'need', grades: g([...luma('24-WG084'), ...STRAPS]) },
  { query: 'something to help me stretch further', kind: 'need', grades: g(STRAPS, luma('24-WG084')) },
  { query: 'track my heart rate while training', kind: 'need', grades: g(luma('24-MG01')) },
  { query: 'a watch that shows two time zones when I travel', kind: 'need', grades: g(luma('24-MG05')) },
  { query: 'a table for the garden', kind: 'need', grades: g([home('wooden-outdoor-table')]) },
  { query: 'something to water my plants with', kind: 'need', grades: g([home('yellow-watering-can')]) },
  {
    query: 'start seedlings before spring',
    kind: 'need',
    grades: g([home('biodegradable-cardboard-pots')], [home('clay-plant-pot'), home('white-ceramic-pot')]),
  },
  { query: 'keep the dog inside the garden', kind: 'need', grades: g([home('wooden-fence')], [home('wooden-outdoor-slats')]) },
  { query: 'make my bathroom smell nice', kind: 'need', grades: g([home('vanilla-candle')]) },
  { query: 'a plant that is hard to kill', kind: 'need', grades: g(['aloe-vera', 'spiky-cactus', 'assorted-succulents'].map(vendure)) },
  { query: 'something to soothe sunburn', kind: 'need', grades: g([vendure('aloe-vera')]) },
  { query: 'something for my dog to fetch', kind: 'need', grades: g([vendure('tennis-ball')]) },
  { query: 'steady my camera for long exposures', kind: 'need', grades: g([vendure('tripod')]) },
  {
    query: 'a decorative piece for my office shelf',
    kind: 'need',
    grades: g([vendure('vintage-folding-camera'), vendure('guardian-lion-statue')], [vendure('spiky-cactus'), vendure('bonsai-tree')]),
  },
  { query: 'bring good fortune to my home', kind: 'need', grades: g([vendure('guardian-lion-statue')]) },
  { query: 'my computer is out of storage space', kind: 'need', grades: g([vendure('hard-drive')]) },
  { query: 'connect my pc to the router', kind: 'need', grades: g([vendure('ethernet-cable')]) },
  { query: 'somewhere to put my phone and a book next to the bed', kind: 'need', grades: g(BEDSIDE_TABLES) },
  { query: 'snacks for a road trip', kind: 'need', grades: g([...CHIPS, ...COOKIES, grocery('NUTRIBAR-001')]) },
  { query: 'a healthy snack after the gym', kind: 'need', grades: g([grocery('NUTRIBAR-001')], [grocery('STRAW-001')]) },
  { query: 'something sweet to have with tea', kind: 'need', grades: g(COOKIES) },
  { query: 'learn to skate as a beginner', kind: 'need', grades: g([vendure('cruiser-skateboard')]) },
  { query: 'practice punching at home', kind: 'need', grades: g([vendure('boxing-gloves')]) },
  { query: 'pack clothes for a weekend away', kind: 'need', grades: g(luma('24-WB07'), luma('24-MB01', '24-UB02')) },
  { query: 'a bag for trips to the beach', kind: 'need', grades: g(luma('24-UB02')) },
  { query: 'a top that blocks UV while I run outside', kind: 'need', grades: g(luma('WJ01', 'MS07'), luma('MJ12', 'WB03')) },
  {
    query: 'be seen by cars when jogging at night',
    kind: 'need',
    grades: g(luma('MT07', 'MT01', 'MP02', 'MP03', 'MP06', 'MP07', 'MSH08', 'WSH09', 'MJ06', 'WJ01', 'WJ12')),
  },
  {
    query: 'stay warm at a winter campsite',
    kind: 'need',
    grades: g(luma('MH04'), [apparel('dark-winter-jacket'), ...luma('MJ02', 'MJ11', 'WH12')]),
  },
  { query: 'sunglasses for running', kind: 'none' },

  // ---- attributes: size, capacity, colour, material, cut ----
  { query: '4 person tent', kind: 'attribute', grades: g([vendure('tent')]) },
  { query: '65 cm exercise ball', kind: 'attribute', grades: g(luma('24-WG082')) },
  { query: '10 foot yoga strap', kind: 'attribute', grades: g(luma('24-WG087')) },
  { query: '15 inch laptop with 16GB of RAM', kind: 'attribute', grades: g([vendure('laptop')]) },
  { query: '27 inch monitor', kind: 'attribute', grades: g([vendure('curvy-monitor')]) },
  { query: '32 inch 4k monitor', kind: 'attribute', grades: g([vendure('32-inch-monitor')]) },
  { query: '2TB hard drive', kind: 'attribute', grades: g([vendure('hard-drive')]) },
  { query: 'tablet with 128GB storage', kind: 'attribute', grades: g([vendure('tablet')]) },
  { query: "men's running shoes size 44", kind: 'attribute', grades: g(RUNNING_SHOES) },
  { query: 'red hoodie for men', kind: 'attribute', grades: g(luma('MH02', 'MH08', 'MH09', 'MH12'), luma('MH05', 'MH10', 'MH11')) },
  { query: 'black hoodie in XL', kind: 'attribute', grades: g(luma('MH01', 'MH02', 'MH03', 'MH06', 'MH07'), luma('MH10')) },
  {
    query: "purple women's hoodie",
    kind: 'attribute',
    grades: g(luma('WH01', 'WH04', 'WH05', 'WH06', 'WH07', 'WH08', 'WH09', 'WH12'), luma('WH03')),
  },
  {
    query: 'wool sweater',
    kind: 'attribute',
    grades: g([apparel('yellow-wool-jumper')], luma('WH01', 'MH01', 'MH02', 'MH05', 'MH06', 'MH10')),
  },
  { query: 'merino wool top', kind: 'attribute', grades: g(luma('MT08', 'MT12', 'WH01')) },
  {
    query: 'organic cotton t-shirt',
    kind: 'attribute',
    grades: g(luma('MS05', 'MS06', 'MS07', 'MS08', 'MS11', 'MS12', 'WS02', 'WS06', 'WS09', 'WS12')),
  },
  { query: 'silk blouse', kind: 'attribute', grades: g([apparel('striped-silk-blouse')], [apparel('silk-summer-top')]) },
  { query: 'leather jacket', kind: 'attribute', grades: g([apparel('classic-leather-jacket')]) },
  { query: 'leather bag', kind: 'attribute', grades: g([apparel('black-leather-bag'), ...luma('24-MB06')]) },
  {
    query: 'sterling silver necklace',
    kind: 'attribute',
    grades: g(
      ['gemstone', 'origami-crane-necklace', 'silver-threader-necklace'].map(jewelry),
      ['dreamcatcher-pendant-necklace', 'choker-with-triangle'].map(jewelry),
    ),
  },
  {
    query: '14k gold necklace',
    kind: 'attribute',
    grades: g(
      ['gold-bird-necklace', 'pretty-gold-necklace', 'choker-with-gold-pendant'].map(jewelry),
      ['choker-with-bead', 'dainty-gold-neclace', 'stylish-summer-neclace'].map(jewelry),
    ),
  },
  { query: 'turquoise earrings', kind: 'attribute', grades: g([jewelry('boho-earrings')]) },
  { query: 'blue chakra bracelet', kind: 'attribute', grades: g([jewelry('chain-bracelet')]) },
  { query: 'gold bangle', kind: 'attribute', grades: g([jewelry('bangle-bracelet'), jewelry('bangle-bracelet-with-feathers')]) },
  { query: 'four seater sofa', kind: 'attribute', grades: g([home('grey-sofa')]) },
  { query: 'two seater sofa with wooden legs', kind: 'attribute', grades: g([home('yellow-sofa')]) },
  { query: 'grey fabric couch', kind: 'attribute', grades: g([vendure('grey-fabric-sofa')], [home('grey-sofa')]) },
  { query: 'solid wood stool', kind: 'attribute', grades: g([vendure('wooden-stool')]) },
  { query: 'white ceramic flower pot', kind: 'attribute', grades: g([home('white-ceramic-pot')], [flower('pot_ceramic')]) },
  { query: 'large clay pot', kind: 'attribute', grades: g([home('clay-plant-pot')]) },
  { query: 'family size bag of crisps', kind: 'attribute', grades: g(CHIPS) },
  { query: 'a 1 lb box of strawberries', kind: 'attribute', grades: g([grocery('STRAW-001')]) },
  { query: "men's shorts with a 7 inch inseam", kind: 'attribute', grades: g(luma('MSH03', 'MSH04')) },
  { query: 'high waisted compression shorts', kind: 'attribute', grades: g(luma('WSH07'), luma('WSH11')) },
  { query: 'women’s capris size 29', kind: 'attribute', grades: g(luma('WP07', 'WP08', 'WP09', 'WP11', 'WP12', 'WP13'), luma('WP06')) },
  { query: 'v-neck tee for women', kind: 'attribute', grades: g(luma('WS01', 'WS02', 'WS06', 'WS08', 'WS10', 'WS11'), luma('WS03')) },
  {
    query: 'crew neck running tee for men',
    kind: 'attribute',
    grades: g(luma('MS12'), luma('MS03', 'MS06', 'MS09', 'MS10', 'MS04', 'MS05')),
  },
  {
    query: 'long sleeve shirt',
    kind: 'attribute',
    grades: g([
      ...luma('MS07', 'MS08', 'WS11'),
      ...['ocean-blue-shirt', 'chequered-red-shirt', 'white-cotton-shirt', 'longsleeve-cotton-top', 'dark-denim-top'].map(apparel),
    ]),
  },
  {
    query: 'full zip hoodie',
    kind: 'attribute',
    grades: g(luma('MH03', 'MH06', 'MH07', 'MH12', 'MH13', 'WH05', 'WH06', 'WH07', 'WH08', 'WH10', 'WH12')),
  },
  { query: 'waterproof duffel for camping', kind: 'attribute', grades: g(luma('24-WB07'), luma('24-MB01', '24-UB02')) },
  { query: 'watch water resistant to 100 meters', kind: 'attribute', grades: g(luma('24-MG03'), luma('24-WG01', '24-WG09')) },
  { query: 'gaming pc with a 240GB SSD', kind: 'attribute', grades: g([vendure('gaming-pc')]) },
  { query: 'RAM 8GB', kind: 'attribute', grades: g([vendure('high-performance-ram')]) },

  // ---- audiences: who it is for ----
  { query: 'gift for my girlfriend who loves jewellery', kind: 'audience', grades: g([...NECKLACES, ...EARRINGS, ...WOMENS_BRACELETS]) },
  { query: 'bracelet for a man', kind: 'audience', grades: g([jewelry('leather-anchor')]) },
  {
    query: 'birthday present for my dad who runs',
    kind: 'audience',
    grades: g([vendure('freerun-running-shoe')], [...RUNNING_SHOES, ...luma('MSH02', 'MS11', 'MS12', '24-MG01')]),
  },
  {
    query: 'for a teenage boy who plays basketball',
    kind: 'audience',
    grades: g([vendure('basketball'), vendure('hi-top-basketball-shoe')]),
  },
  { query: 'gift for a photographer', kind: 'audience', grades: g([vendure('tripod'), vendure('camera-lens')], CAMERAS) },
  {
    query: 'present for someone who loves gardening',
    kind: 'audience',
    grades: g([...TROWELS, home('yellow-watering-can')], [...POTS, home('biodegradable-cardboard-pots')]),
  },
  {
    query: 'something for my wife who does yoga',
    kind: 'audience',
    grades: g(luma('WH05', 'WJ02', 'WJ09', 'WT05', 'WP01', 'WSH05', '24-WB01'), [...luma('24-WG084'), ...STRAPS]),
  },
  { query: "men's gym tank", kind: 'audience', grades: g(luma('MT05', 'MT08', 'MT10'), MEN_TANKS) },
  { query: "women's running jacket", kind: 'audience', grades: g(luma('WJ04'), luma('WJ01', 'WJ08', 'WJ12')) },
  { query: 'watch for women', kind: 'audience', grades: g(WOMEN_WATCHES, luma('24-MG03')) },
  { query: "men's watch", kind: 'audience', grades: g(MEN_WATCHES) },
  { query: "men's t-shirt", kind: 'audience', grades: g(MEN_TEES) },
  { query: 'workout tee for women', kind: 'audience', grades: g(WOMEN_TEES, WOMEN_TANKS) },
  { query: "men's training pants", kind: 'audience', grades: g(MEN_PANTS) },
  { query: 'athletic pants for women', kind: 'audience', grades: g(WOMEN_PANTS) },
  { query: "men's gym shorts", kind: 'audience', grades: g(MEN_SHORTS) },
  { query: 'shorts for her summer workouts', kind: 'audience', grades: g(WOMEN_SHORTS) },
  { query: 'shoes for my son’s basketball team', kind: 'audience', grades: g([vendure('hi-top-basketball-shoe')]) },
  { query: "ladies' sports watch", kind: 'audience', grades: g(luma('24-WG01', '24-WG02'), luma('24-WG03')) },
  { query: "men's shirt for a wedding", kind: 'audience', grades: g([apparel('blue-silk-tuxedo')], [apparel('ocean-blue-shirt')]) },
  { query: 'hoodie for my teenage daughter', kind: 'audience', grades: g(WOMEN_HOODIES) },
  {
    query: 'warm jacket for my husband',
    kind: 'audience',
    grades: g(luma('MJ02', 'MJ10', 'MJ11', 'MJ01'), [...MEN_JACKETS, apparel('navy-sport-jacket'), apparel('zipped-jacket')]),
  },
  {
    query: "women's jacket",
    kind: 'audience',
    grades: g([...WOMEN_JACKETS, ...['classic-leather-jacket', 'dark-winter-jacket', 'olive-green-jacket'].map(apparel)]),
  },
  {
    query: 'flowers for my mum on mother’s day',
    kind: 'audience',
    grades: g([...BOUQUETS, flower('orchid_white')], [vendure('orchid'), flower('gardenias')]),
  },
  { query: 'gift for a coffee lover', kind: 'none' },
  { query: 'toy for a toddler', kind: 'none' },
  { query: 'something for a newborn baby', kind: 'none' },

  // ---- budgets ----
  { query: 'sofa under $100', kind: 'budget', grades: g([home('grey-sofa'), home('yellow-sofa')]) },
  { query: 'cheap monitor', kind: 'budget', grades: g([vendure('curvy-monitor')]) },
  { query: 'running shoes under $50', kind: 'budget', grades: g([vendure('runx-running-shoe')]) },
  {
    query: 'running shoes under 100 dollars',
    kind: 'budget',
    grades: g(['ultraboost-running-shoe', 'pureboost-running-shoe', 'runx-running-shoe'].map(vendure)),
  },
  { query: 'a camera under $200', kind: 'budget', grades: g([vendure('instant-camera'), vendure('instamatic-camera')]) },
  { query: 'a laptop under $1000', kind: 'none' },
  { query: "women's hoodie under $50", kind: 'budget', grades: g(luma('WH02', 'WH05', 'WH08', 'WH09')) },
  { query: "men's tee under $25", kind: 'budget', grades: g(luma('MS01', 'MS05', 'MS10')) },
  {
    query: 'yoga pants for women under $50',
    kind: 'budget',
    grades: g(luma('WP01', 'WP02', 'WP13'), luma('WP03', 'WP07', 'WP08', 'WP11')),
  },
  { query: 'necklace under $20', kind: 'budget', grades: g([jewelry('choker-with-bead'), jewelry('silver-threader-necklace')]) },
  {
    query: 'gold necklace under $50',
    kind: 'budget',
    grades: g(['choker-with-gold-pendant', 'pretty-gold-necklace', 'stylish-summer-neclace'].map(jewelry), [jewelry('choker-with-bead')]),
  },
  { query: 'earrings under 30 dollars', kind: 'budget', grades: g([jewelry('boho-earrings'), jewelry('guardian-angel-earrings')]) },
  { query: 'backpack under $40', kind: 'budget', grades: g(luma('24-MB03', '24-WB06', '24-WB03'), luma('24-MB04')) },
  { query: 'watch between 40 and 50 dollars', kind: 'budget', grades: g(luma('24-MG04', '24-MG01', '24-WG09', '24-WG01')) },
  { query: 'plants under $10', kind: 'budget', grades: g(['tulip-pot', 'aloe-vera', 'fern-blechnum-gibbum'].map(vendure)) },
  {
    query: 'a bouquet under $30',
    kind: 'budget',
    grades: g([flower('bouquet_sunflowers')], [flower('bouquet_tulips'), flower('gardenias')]),
  },
  { query: 'a bike for less than $3000', kind: 'budget', grades: g([vendure('road-bike')]) },
  { query: 'snacks under $4', kind: 'budget', grades: g([grocery('CHIPS-001'), grocery('NUTRIBAR-001')]) },
  { query: 'keyboard under $100', kind: 'budget', grades: g([vendure('clacky-keyboard')]) },
  { query: 'cheap jump rope', kind: 'budget', grades: g([vendure('skipping-rope'), ...luma('24-UG04')]) },
  { query: "men's jacket under $50", kind: 'budget', grades: g(luma('MJ01', 'MJ03', 'MJ04', 'MJ12')) },
  {
    query: "women's jacket under $60",
    kind: 'budget',
    grades: g([...luma('WJ02', 'WJ03', 'WJ07', 'WJ08', 'WJ09'), apparel('dark-winter-jacket')], luma('WJ05')),
  },
  {
    query: 'a chair under $100',
    kind: 'budget',
    grades: g([vendure('black-eaves-chair'), vendure('balloon-chair')], [vendure('modern-cafe-chair'), vendure('wooden-stool')]),
  },
  { query: 'tent under $100', kind: 'none' },
  { query: 'premium leather sofa', kind: 'budget', grades: g([vendure('leather-sofa')]) },

  // ---- typos ----
  { query: 'hoodei', kind: 'typo', grades: g([...MEN_HOODIES, ...WOMEN_HOODIES]) },
  {
    query: 'sneekers',
    kind: 'typo',
    grades: g([vendure('allstar-sneakers'), apparel('led-high-tops'), vendure('hi-top-basketball-shoe')], RUNNING_SHOES),
  },
  { query: 'bedsde table', kind: 'typo', grades: g(BEDSIDE_TABLES) },
  { query: 'ochid', kind: 'typo', grades: g([vendure('orchid'), flower('orchid_white')]) },
  { query: 'sunflowrs', kind: 'typo', grades: g([flower('bouquet_sunflowers')]) },
  { query: 'bracelett', kind: 'typo', grades: g(BRACELETS) },
  { query: 'neckalce', kind: 'typo', grades: g(NECKLACES) },
  { query: 'tripdo', kind: 'typo', grades: g([vendure('tripod')]) },
  { query: 'skatebord', kind: 'typo', grades: g([vendure('cruiser-skateboard')]) },
  { query: 'raod bike', kind: 'typo', grades: g([vendure('road-bike')]) },
  { query: 'yoga stap', kind: 'typo', grades: g(STRAPS) },
  { query: 'moniter', kind: 'typo', grades: g(MONITORS) },
  { query: 'labtop', kind: 'typo', grades: g([vendure('laptop')]) },
  { query: 'chocolate chip cookeis', kind: 'typo', grades: g([grocery('BISC-001')]) },
  { query: 'strawberies', kind: 'typo', grades: g([grocery('STRAW-001')]) },
  { query: 'wrist wacth for men', kind: 'typo', grades: g(MEN_WATCHES) },
  { query: 'earings', kind: 'typo', grades: g(EARRINGS) },
  { query: 'tenis ball', kind: 'typo', grades: g([vendure('tennis-ball')]) },
  { query: 'dufle bag', kind: 'typo', grades: g(DUFFLES) },
  { query: 'leggins', kind: 'typo', grades: g(luma('WP02', 'WP05', 'WP06', 'WP07', 'WP08'), luma('WP09', 'WP11', 'WP12', 'WP13', 'MP09')) },
  { query: 'sofa cusions', kind: 'typo', grades: g(THROW_PILLOWS) },
  { query: 'camra lens', kind: 'typo', grades: g([vendure('camera-lens')]) },

  // ---- brand and store names, and names that are not the content ----
  { query: 'nike running shoes', kind: 'brand', grades: g([vendure('freerun-running-shoe')], [vendure('hi-top-basketball-shoe')]) },
  {
    query: 'adidas trainers',
    kind: 'brand',
    grades: g(['ultraboost-running-shoe', 'pureboost-running-shoe', 'runx-running-shoe'].map(vendure)),
  },
  { query: 'converse', kind: 'brand', grades: g([vendure('allstar-sneakers')]) },
  { query: 'apple laptop', kind: 'brand', grades: g([vendure('laptop')]) },
  { query: 'samsung monitor', kind: 'brand', grades: g(MONITORS) },
  { query: 'logitech mouse', kind: 'brand', grades: g([vendure('cordless-mouse')]) },
  { query: 'corsair keyboard', kind: 'brand', grades: g([vendure('clacky-keyboard')]) },
  { query: 'wilson basketball', kind: 'brand', grades: g([vendure('basketball')]) },
  { query: 'everlast boxing gloves', kind: 'brand', grades: g([vendure('boxing-gloves')]) },
  { query: 'sony camera', kind: 'brand', grades: g([vendure('compact-digital-camera')]) },
  { query: 'kodak camera', kind: 'brand', grades: g([vendure('instamatic-camera')]) },
  { query: 'polaroid', kind: 'brand', grades: g([vendure('instant-camera')]) },
  { query: 'rolleiflex', kind: 'brand', grades: g([vendure('twin-lens-camera')]) },
  { query: 'nikon camera', kind: 'brand', grades: g([vendure('nikkormat-slr-camera')], [vendure('camera-lens')]) },
  { query: 'hyperdunkz', kind: 'brand', grades: g([vendure('hi-top-basketball-shoe')]) },
  { query: 'luma yoga pants', kind: 'brand', grades: g(luma('MP08', 'MP10', 'MP12', 'WP01', 'WP10'), luma('WP02', 'WP13')) },
  { query: 'luma water bottle', kind: 'brand', grades: g(luma('24-UG06')) },
  { query: 'company 123 sofa', kind: 'brand', grades: g([home('cream-sofa')]) },
  { query: 'sterling ltd earrings', kind: 'brand', grades: g([jewelry('galaxy-earrings'), jewelry('guardian-angel-earrings')]) },
  { query: 'home sweet home pillows', kind: 'brand', grades: g([home('knitted-throw-pillows')]) },
  { query: 'farmfresh strawberries', kind: 'brand', grades: g([grocery('STRAW-001')]) },
  { query: 'cookieco cookies', kind: 'brand', grades: g(COOKIES) },
  { query: 'manfrotto', kind: 'brand', grades: g([vendure('tripod')]) },
  { query: 'pinarello', kind: 'brand', grades: g([vendure('road-bike')]) },
  { query: 'cocona fabric tee', kind: 'brand', grades: g(luma('MS03', 'MS07', 'MS11', 'MS12', 'WS07', 'WS11')) },

  // ---- nothing in the stores fits ----
  { query: 'kayak paddle', kind: 'none' },
  { query: 'baby stroller', kind: 'none' },
  { query: 'dry dog food', kind: 'none' },
  { query: 'red lipstick', kind: 'none' },
  { query: 'electric toothbrush', kind: 'none' },
  { query: 'winter tyres for my car', kind: 'none' },
  { query: 'evening gown', kind: 'none' },
  { query: 'espresso machine', kind: 'none' },
  { query: 'hiking boots', kind: 'none' },
  { query: 'sleeping bag', kind: 'none' },
  { query: 'wine glasses', kind: 'none' },
  { query: 'printer ink', kind: 'none' },
  { query: 'king size mattress', kind: 'none' },
  { query: 'iphone case', kind: 'none' },
  { query: 'fishing rod', kind: 'none' },
  { query: 'sunscreen spf 50', kind: 'none' },
  { query: 'asdfgh', kind: 'none' },
  { query: 'qwerty zxcv', kind: 'none' },
];
