/**
 * Reads a shopper's words ("cheap runing shoes for my dad under $80 in Canada") into what product
 * retrieval searches with: content keywords, the categories named (also misspelt, or only implied
 * by who the gift is for), a budget, an audience and a ship-to region. Pure and deterministic: the
 * category table comes from the caller (feed imports add rows TAXONOMY does not know), TAXONOMY only
 * lends vocabulary (product nouns), looked up by name; budget words are cut at the catalog's own price quartiles.
 */
import { TAXONOMY, type L2Def } from '../catalog/taxonomy';
import { parseBudget, parseRegion, type ParsedBudget } from '../matching/intent-text';
import { audienceAttribute, readSentenceAttributes, type WantedAttribute } from './attributes';
import {
  contentWords,
  findPhrases,
  isFree,
  keyed,
  keyOf,
  longestPhrase,
  normalizeQuery,
  phraseKey,
  readSentence,
  spanText,
  STOP_WORDS,
  FILLER_WORDS,
  type BudgetWordKind,
  type Reading,
  type SentenceReading,
  type Span,
} from '../text/words';

export interface CategoryRef {
  category_id: number;
  level: 1 | 2;
  name: string;
  parent_id: number | null;
}

export interface ResolvedCategory extends CategoryRef {
  /** "Footwear" for an L1, "Footwear > Running Shoes" for an L2 (parent name > name). */
  path: string;
  /** How it was found: its own name, a synonym / product noun, a typo-tolerant match, or only an audience hint. */
  via: 'name' | 'synonym' | 'typo' | 'audience';
  /** The query words that named it (or the audience phrase). */
  term: string;
}

export interface ShoppingIntent {
  query: string;
  normalized: string;
  /** Content words in query order, lower-case, de-duplicated; category-naming words stay (full-text search matches them too). */
  keywords: string[];
  /** keywords joined by one space (the probe for a "query text in title" substring search). */
  phrase: string;
  /** Most specific first (L2 before L1), no duplicates; audience hints only when the text names no category. */
  categories: ResolvedCategory[];
  /** L1 names the audience rules out, e.g. a male audience rules out "Women's Clothing". */
  excludedL1: string[];
  budget: { minCents: number | null; maxCents: number | null; phrase: string; source: 'text' | 'word' } | null;
  audience: { label: string; phrase: string; age: string | null } | null;
  region: { code: string; source: 'param' | 'text'; phrase: string | null } | null;
  /**
   * Attributes asked for (src/recommend/attributes.ts): capacity, size, colour, material, pack,
   * amounts, and who it is for (gender and age, from the audience reading above).
   */
  attributes: WantedAttribute[];
}

// ---------------------------------------------------------------------------------------------
// Vocabulary tables

/**
 * Everyday shopper words per category name, on top of the names themselves and TAXONOMY's product
 * nouns. A word listed under several categories is ambiguous on purpose ("jacket"): it resolves to
 * all of them and the audience narrows it. Plurals need not be listed (words are compared singular).
 */
export const SHOPPER_SYNONYMS: Record<string, string[]> = {
  // Beauty & Personal Care
  'Beauty & Personal Care': ['toiletries', 'self care'],
  Skincare: [
    'skin care',
    'serum',
    'moisturizer',
    'moisturiser',
    'lotion',
    'sunscreen',
    'spf',
    'cleanser',
    'face wash',
    'toner',
    'retinol',
    'face cream',
  ],
  Makeup: ['make up', 'cosmetics', 'lipstick', 'lip gloss', 'mascara', 'eyeshadow', 'eyeliner', 'blush', 'bronzer', 'concealer'],
  'Hair Care': ['haircare', 'shampoo', 'conditioner', 'hair oil', 'hair products'],
  Fragrance: ['perfume', 'cologne', 'scent', 'parfum', 'body spray', 'eau de toilette'],
  'Beauty Tools': ['hair dryer', 'blow dryer', 'hair straightener', 'flat iron', 'curling iron', 'makeup brushes', 'facial roller'],
  // Clothing
  "Women's Clothing": ['clothes', 'clothing', 'apparel', 'outfit', 'womenswear', 'ladies clothing'],
  Dresses: ['gown', 'sundress'],
  'Tops & Blouses': ['shirt', 'cami', 'camisole'],
  Activewear: ['athleisure', 'leggings', 'yoga pants', 'sports bra', 'workout clothes', 'gym clothes'],
  Outerwear: ['jacket', 'coat', 'parka', 'puffer', 'raincoat', 'rain jacket'],
  Loungewear: ['pajamas', 'pyjamas', 'pjs', 'sleepwear', 'lounge wear'],
  "Men's Clothing": ['clothes', 'clothing', 'apparel', 'outfit', 'menswear'],
  'T-Shirts': ['tee', 'tshirt', 'shirt', 'henley'],
  'Hoodies & Sweatshirts': ['hoodie', 'sweatshirt', 'sweater', 'jumper', 'pullover'],
  'Jeans & Pants': ['trousers', 'chinos', 'joggers', 'slacks', 'denim'],
  Jackets: ['jacket', 'coat', 'parka', 'puffer', 'raincoat', 'rain jacket'],
  'Underwear & Socks': ['boxers', 'briefs', 'boxer briefs'],
  // Footwear
  Footwear: ['shoes', 'dress shoes'],
  'Running Shoes': ['trainers', 'running sneakers', 'jogging shoes'],
  Sneakers: ['trainers', 'kicks', 'tennis shoes'],
  Boots: ['rain boots'],
  'Sandals & Slides': ['flip flops', 'slippers'],
  "Kids' Shoes": ['childrens shoes', 'toddler shoes', 'baby shoes'],
  // Bags & Accessories
  Handbags: ['purse', 'tote', 'clutch', 'crossbody'],
  Backpacks: ['rucksack', 'bookbag', 'school bag'],
  Wallets: ['cardholder', 'money clip'],
  Jewelry: ['jewellery', 'necklace', 'earrings', 'bracelet', 'ring', 'pendant', 'anklet'],
  Watches: ['wristwatch'],
  Sunglasses: ['sunnies', 'shades', 'sun glasses'],
  // Electronics
  Electronics: ['gadgets', 'tech'],
  'Headphones & Earbuds': ['earphones', 'headset', 'airpods', 'ear buds'],
  'Phone Accessories': ['phone', 'phone case', 'charger', 'power bank', 'iphone case', 'cell phone'],
  'Smart Home': ['alexa', 'smart speaker', 'doorbell', 'security camera', 'smart lights', 'robot hoover'],
  Wearables: ['smart watch', 'fitbit', 'pedometer', 'step counter'],
  'Cameras & Drones': ['gopro', 'action cam', 'dashcam'],
  'Portable Speakers': ['speaker', 'soundbar'],
  // Computers & Office
  'Laptop Accessories': ['laptop', 'macbook', 'usb hub'],
  'Keyboards & Mice': ['trackpad', 'trackball', 'computer mouse'],
  Monitors: ['display'],
  'Office Supplies': ['stationery', 'pen', 'notebook', 'school supplies'],
  'Desk Furniture': ['desk', 'chair', 'office chair', 'desk chair'],
  // Home & Kitchen
  'Home & Kitchen': ['house', 'housewares'],
  Cookware: ['pot', 'pan', 'skillet', 'frying pan', 'wok'],
  'Small Kitchen Appliances': [
    'appliance',
    'kitchen appliances',
    'blender',
    'toaster',
    'coffee maker',
    'coffee machine',
    'kettle',
    'instant pot',
    'microwave',
  ],
  Bedding: ['bed', 'sheets', 'duvet', 'comforter', 'pillow', 'blanket'],
  'Home Decor': ['decor', 'decoration', 'lamp', 'candle', 'mirror', 'vase', 'wall art'],
  'Storage & Organization': ['organizer', 'organiser', 'storage bins', 'shelf'],
  'Cleaning Supplies': ['cleaning', 'mop', 'vacuum', 'vacuum cleaner', 'hoover', 'broom'],
  // Health & Wellness
  'Vitamins & Supplements': ['multivitamin', 'protein powder', 'collagen', 'probiotics'],
  'Fitness Equipment': ['workout', 'gym', 'home gym', 'fitness', 'weights', 'dumbbells', 'exercise', 'treadmill', 'resistance bands'],
  'Massage & Recovery': ['massager', 'theragun'],
  'Oral Care': ['toothbrush', 'floss', 'flosser', 'teeth whitening', 'dental'],
  'Sleep & Relaxation': ['sleep aid', 'diffuser', 'white noise', 'eye mask', 'meditation'],
  // Sports & Outdoors
  'Camping Gear': ['camping', 'tent', 'hiking', 'backpacking', 'lantern', 'camping chair'],
  Cycling: ['bike', 'bicycle', 'biking', 'bike helmet', 'helmet'],
  'Yoga & Pilates': ['yoga mat', 'pilates mat', 'yoga block'],
  Fishing: ['fishing rod', 'rod', 'reel', 'tackle', 'lure'],
  Drinkware: ['tumbler', 'water bottle', 'bottle', 'mug', 'thermos', 'flask'],
  // Toys & Games
  'Building Sets': ['lego', 'building blocks', 'blocks'],
  'Plush Toys': ['plush', 'plushie', 'stuffed animal', 'teddy bear', 'squishmallow'],
  'Board Games': ['board game', 'card game', 'puzzle', 'jigsaw puzzle'],
  'Educational Toys': ['educational', 'stem toys', 'learning toys', 'microscope'],
  'Outdoor Play': ['outdoor toys', 'scooter', 'kite', 'trampoline', 'swing'],
  // Baby & Kids
  Diapering: ['diaper', 'nappies', 'nappy', 'diaper bag', 'nappy bag'],
  Feeding: ['baby bottle', 'bib', 'sippy cup', 'baby food'],
  'Strollers & Car Seats': ['pram', 'pushchair', 'buggy'],
  'Baby Clothing': ['baby clothes', 'onesie', 'romper', 'swaddle'],
  Nursery: ['crib', 'cot'],
  // Pet Supplies
  'Pet Supplies': ['pet', 'dog', 'puppy'],
  'Dog Food & Treats': ['dog treats', 'kibble', 'dog chews', 'puppy food', 'puppy treats'],
  'Cat Supplies': ['cat', 'kitten', 'litter box', 'cat litter', 'litter'],
  'Pet Toys': ['dog toy', 'cat toy'],
  'Pet Beds': ['dog bed', 'cat bed', 'pet bed'],
  Grooming: ['pet grooming', 'dog brush', 'dog shampoo'],
  // Food & Beverage
  'Food & Beverage': ['groceries', 'gourmet'],
  Snacks: ['chips', 'jerky', 'protein bar', 'crisps'],
  'Coffee & Tea': ['matcha', 'espresso', 'coffee beans'],
  Pantry: ['spices', 'hot sauce', 'honey', 'seasoning', 'condiments'],
  Beverages: ['drinks', 'soda', 'juice', 'energy drink'],
  'Sweets & Baking': ['chocolate', 'candy', 'cookies', 'dessert'],
  // Automotive
  Automotive: ['car', 'auto', 'truck', 'vehicle'],
  'Car Electronics': ['carplay', 'car charger', 'car mount'],
  'Interior Accessories': ['car accessories', 'seat covers', 'car organizer'],
  'Car Care': ['car wash', 'car cleaning', 'detailing', 'car wax'],
  'Tools & Equipment': ['toolkit', 'tool set', 'wrench', 'drill'],
};

/**
 * Last words of product nouns too generic to name a category on their own ("sheet set", "science
 * kit"): the full noun still does.
 */
const GENERIC_HEADS = new Set(
  (
    'set kit pack bar case combo system mix blend machine strip cloth towel light tree cover oil spray powder water clock board pad mat box post stand mount sauce cream mask remover ' +
    'iron zip flat holder maker paste gun strap tile run animal tablet plate seat carrier multipack grinder starter adapter cushion scanner concentrate'
  ).split(' '),
);

// ---------------------------------------------------------------------------------------------
// Audience tables

type Gender = 'male' | 'female';
type Stage = 'baby' | 'kids' | 'teen' | 'adult';

interface Trigger {
  gender?: Gender;
  stage?: Stage;
  /** An interest label of INTERESTS. */
  interest?: string;
  /** An activity ("running", "travel") describes the product too, so it stays a keyword. */
  activity?: boolean;
}

/** Read as "for <label>" by the shopper guide, so labels are plural nouns. */
const GENDERS: Record<Gender, { label: string; excludedL1: string[] }> = {
  male: { label: 'men', excludedL1: ["Women's Clothing"] },
  female: { label: 'women', excludedL1: ["Men's Clothing"] },
};

const STAGES: Record<Stage, { label: string; age: string | null; hints: string[]; refine: Record<string, string> }> = {
  // An L1 named for a small child narrows to the child-sized L2 ("shoes for my son").
  baby: {
    label: 'babies',
    age: '0-2',
    hints: ['Baby & Kids'],
    refine: { Footwear: "Kids' Shoes", "Women's Clothing": 'Baby Clothing', "Men's Clothing": 'Baby Clothing' },
  },
  kids: { label: 'kids', age: '3-12', hints: ['Toys & Games'], refine: { Footwear: "Kids' Shoes" } },
  // Teens and adults wear and use everything: no guess at categories.
  teen: { label: 'teens', age: '13-19', hints: [], refine: {} },
  adult: { label: 'adults', age: null, hints: [], refine: {} },
};

const INTERESTS: Record<string, string[]> = {
  runners: ['Running Shoes'],
  gamers: ['Headphones & Earbuds', 'Keyboards & Mice'],
  students: ['Laptop Accessories', 'Office Supplies'],
  travelers: ['Backpacks'],
  'home cooks': ['Cookware', 'Small Kitchen Appliances'],
  'dog owners': ['Dog Food & Treats', 'Pet Toys'],
  'cat owners': ['Cat Supplies', 'Pet Toys'],
  'pet owners': ['Pet Supplies'],
  'new parents': ['Baby & Kids'],
  'fitness fans': ['Fitness Equipment'],
};

/** Phrases naming who it is for. "her" only counts as "for her": alone it is mostly a possessive. */
const AUDIENCE_TRIGGERS: Array<[Trigger, string[]]> = [
  [
    { gender: 'male', stage: 'adult' },
    [
      'dad',
      'daddy',
      'father',
      'husband',
      'hubby',
      'boyfriend',
      'grandpa',
      'grandfather',
      'granddad',
      'grandad',
      'uncle',
      'fiance',
      'father in law',
      'brother in law',
      'son in law',
      'adult son',
      'grown son',
      'grown up son',
    ],
  ],
  [{ gender: 'male' }, ['him', 'men', 'man', 'guy', 'gentleman', 'male', 'brother', 'bro', 'nephew']],
  [
    { gender: 'female', stage: 'adult' },
    [
      'mom',
      'mommy',
      'mum',
      'mother',
      'wife',
      'girlfriend',
      'grandma',
      'grandmother',
      'granny',
      'aunt',
      'auntie',
      'fiancee',
      'mother in law',
      'sister in law',
      'daughter in law',
      'adult daughter',
      'grown daughter',
      'grown up daughter',
    ],
  ],
  [{ gender: 'female' }, ['for her', 'women', 'woman', 'lady', 'female', 'sister', 'sis', 'niece']],
  [{ gender: 'male', stage: 'kids' }, ['son', 'boy', 'grandson', 'little boy']],
  [{ gender: 'female', stage: 'kids' }, ['daughter', 'girl', 'granddaughter', 'little girl']],
  [{ stage: 'kids' }, ['kid', 'child', 'children', 'toddler', 'tween', 'grandkid', 'grandchild']],
  [{ stage: 'baby' }, ['baby', 'newborn', 'infant']],
  [{ gender: 'male', stage: 'baby' }, ['baby boy']],
  [{ gender: 'female', stage: 'baby' }, ['baby girl']],
  [{ stage: 'teen' }, ['teen', 'teenager', 'teenage', 'teenaged']],
  [{ interest: 'runners' }, ['runner', 'marathoner', 'marathon runner', 'trail runner']],
  [{ interest: 'runners', activity: true }, ['running']],
  [{ interest: 'gamers' }, ['gamer', 'video gamer']],
  [{ interest: 'gamers', activity: true }, ['gaming', 'video game']],
  [{ interest: 'students' }, ['student', 'college student', 'grad student']],
  [{ interest: 'students', activity: true }, ['back to school']],
  [{ interest: 'travelers' }, ['traveler', 'traveller', 'frequent flyer']],
  [{ interest: 'travelers', activity: true }, ['travel', 'traveling', 'travelling']],
  [{ interest: 'home cooks' }, ['cook', 'home cook', 'chef', 'foodie']],
  [{ interest: 'home cooks', activity: true }, ['cooking']],
  [{ interest: 'dog owners' }, ['dog lover', 'dog owner', 'dog person', 'dog parent']],
  [{ interest: 'dog owners', gender: 'female' }, ['dog mom']],
  [{ interest: 'dog owners', gender: 'male' }, ['dog dad']],
  [{ interest: 'cat owners' }, ['cat lover', 'cat owner', 'cat person', 'cat parent']],
  [{ interest: 'cat owners', gender: 'female' }, ['cat mom', 'cat lady']],
  [{ interest: 'cat owners', gender: 'male' }, ['cat dad']],
  [{ interest: 'pet owners' }, ['pet lover', 'pet owner', 'pet parent']],
  [{ interest: 'new parents' }, ['new parent', 'expecting parent', 'parent to be', 'baby shower']],
  [{ interest: 'new parents', gender: 'female' }, ['new mom', 'new mum', 'mom to be']],
  [{ interest: 'new parents', gender: 'male' }, ['new dad', 'dad to be']],
  [
    { interest: 'fitness fans' },
    ['gym goer', 'gym rat', 'gym lover', 'athlete', 'bodybuilder', 'fitness lover', 'fitness fan', 'fitness enthusiast'],
  ],
];

/** Words that introduce an audience ("for my dad"): reported with the audience phrase. */
const AUDIENCE_LEAD = new Set(['my', 'a', 'an', 'the', 'our', 'his', 'her', 'their', 'your']);
const AUDIENCE_PREPOSITION = new Set(['for', 'to']);
/** Words after which a category is a use or a place, not the product ("trainers for the gym"). */
const PREPOSITIONS = new Set(['for', 'from', 'at', 'in', 'on', 'with', 'to']);

// ---------------------------------------------------------------------------------------------
// Budget and filler words

/**
 * A budget word's cut: the named category's lower or upper price quartile in the catalog (the whole
 * catalog's without a category, and a fixed amount when no quartiles are known).
 */
const BUDGET_CUT = { cheap: { quartile: 'p25', fallbackCents: 2500 }, premium: { quartile: 'p75', fallbackCents: 10_000 } } as const;

/** Key of the whole catalog's quartiles in PriceQuartiles. */
export const ALL_CATEGORIES = 0;
/** USD price quartiles (cents) of the products in a category (an L1's include its L2s), by category id. */
export type PriceQuartiles = ReadonlyMap<number, { p25: number; p75: number }>;

/**
 * Everyday words one plausible slip away from a vocabulary word ("black" ~ "block", "sides" ~
 * "slides"), found by running an English word list through the typo matcher: never corrected.
 */
const NOT_TYPOS = new Set(
  'black battle charter choir desert drank drunk letter message panty saddle share shift side sort space spot sweat track trick tuner witch sewing'.split(
    ' ',
  ),
);

// ---------------------------------------------------------------------------------------------
// The vocabulary of one category table

interface Sense {
  category: CategoryRef;
  via: 'name' | 'synonym';
}

/** What a phrase means: categories, or who it is for. */
type Meaning = { senses: Sense[]; trigger?: undefined } | { trigger: Trigger; senses?: undefined };

interface Vocabulary {
  meanings: Map<string, Meaning>;
  longest: number;
  /** Every word a phrase is made of: such a word is spelt right. */
  known: Set<string>;
  /** Words of names, synonyms and audience phrases of 5+ letters: what a misspelt word may be read as. */
  typoTargets: string[];
  byId: Map<number, CategoryRef>;
  byName: Map<string, CategoryRef[]>;
}

const vocabularies = new WeakMap<CategoryRef[], Vocabulary>();

function vocabularyFor(categories: CategoryRef[]): Vocabulary {
  let vocab = vocabularies.get(categories);
  if (!vocab) {
    vocab = buildVocabulary(categories);
    vocabularies.set(categories, vocab);
  }
  return vocab;
}

function buildVocabulary(categories: CategoryRef[]): Vocabulary {
  const byId = new Map(categories.map((c) => [c.category_id, c]));
  // Tiers, strongest first: a phrase found in a stronger tier ignores the weaker ones, so "shoes"
  // (a synonym of Footwear) is not also the last word of "trail running shoes".
  const named = new Map<string, Sense[]>();
  const nouns = new Map<string, Sense[]>();
  const heads = new Map<string, Sense[]>();
  for (const c of categories) {
    for (const phrase of namePhrases(c.name)) addSense(named, phrase, c, 'name');
    for (const phrase of own(SHOPPER_SYNONYMS, c.name) ?? []) addSense(named, phrase, c, 'synonym');
    const def = taxonomyDef(c, byId);
    for (const noun of def?.nouns ?? []) {
      addSense(nouns, noun, c, 'synonym');
      const words = phraseKey(noun).split(' ');
      const head = words.at(-1)!;
      if (words.length > 1 && !GENERIC_HEADS.has(head)) addSense(heads, head, c, 'synonym');
    }
  }
  const meanings = new Map<string, Meaning>();
  for (const tier of [named, nouns, heads]) for (const [key, senses] of tier) if (!meanings.has(key)) meanings.set(key, { senses });
  // A phrase both names a category and says who it is for ("baby", "kids"): the audience wins.
  for (const [key, trigger] of AUDIENCE_PHRASES) meanings.set(key, { trigger });

  const wordsOf = (list: string[]) => new Set(list.flatMap((k) => k.split(' ')));
  // Product nouns' words ("heating", "stacking", "party") are too close to everyday words to correct towards.
  const typoTargets = [...wordsOf([...named.keys(), ...AUDIENCE_PHRASES.keys()])].filter((w) => w.length >= 5 && /^\p{L}+$/u.test(w));
  const byName = new Map<string, CategoryRef[]>();
  for (const c of categories) byName.set(c.name, [...(byName.get(c.name) ?? []), c]);
  return {
    meanings,
    longest: longestPhrase(meanings),
    known: wordsOf([...meanings.keys()]),
    typoTargets,
    byId,
    byName,
  };
}

/** A table entry by a name from the database ("constructor" is a name, not Object's). */
const own = <T>(table: Record<string, T>, name: string): T | undefined => (Object.hasOwn(table, name) ? table[name] : undefined);

/** The whole name and, for "A & B" names, each side ("Headphones & Earbuds" → "headphones", "earbuds"). */
function namePhrases(name: string): string[] {
  const sides = name.split(/\s*(?:&|,|\/|\band\b)\s*/i).filter(Boolean);
  return sides.length > 1 ? [name, ...sides] : [name];
}

function addSense(map: Map<string, Sense[]>, phrase: string, category: CategoryRef, via: Sense['via']): void {
  const key = phraseKey(phrase);
  // "can" (of "car trash can") is a verb far more often than a product.
  if (!key || STOP_WORDS.has(key)) return;
  const senses = map.get(key) ?? [];
  if (!senses.some((s) => s.category.category_id === category.category_id)) senses.push({ category, via });
  map.set(key, senses);
}

function taxonomyDef(c: CategoryRef, byId: Map<number, CategoryRef>): L2Def | undefined {
  if (c.level !== 2 || c.parent_id === null) return undefined;
  const parent = byId.get(c.parent_id);
  return TAXONOMY.find((l1) => l1.name === parent?.name)?.children.find((l2) => l2.name === c.name);
}

// ---------------------------------------------------------------------------------------------
// Reading the words

interface CategoryMention extends Span {
  senses: Sense[];
}
interface AudienceMention extends Span {
  trigger: Trigger;
  /** Stage read from a stated age ("10 year old"), which outranks the stage a word implies. */
  statedAge: boolean;
}

const AUDIENCE_PHRASES = keyed(AUDIENCE_TRIGGERS);

/**
 * Reads an unknown word of 5+ letters as the name or synonym word one edit (Damerau-Levenshtein)
 * away. Against real words that are not in the vocabulary ("paint", "dressy", "batch") a typo must
 * keep the first letter and not differ only at the end (an inflection), and the likeliest kind of
 * slip must point at one word: guessing wrong would name a category the shopper never meant.
 */
function correctTypos(reading: Reading, normalized: string, vocab: Vocabulary): void {
  reading.parts.forEach((p, i) => {
    const text = normalized.slice(p.start, p.end);
    if (
      reading.blocked[i] ||
      text.length < 5 ||
      !/^\p{L}+$/u.test(text) ||
      vocab.known.has(p.key) ||
      NOT_TYPOS.has(p.key) ||
      STOP_WORDS.has(text) ||
      FILLER_WORDS.has(text)
    )
      return;
    const target = likeliestTarget([...new Set([p.key, text])], vocab.typoTargets);
    if (!target) return;
    p.key = target;
    reading.corrected[i] = true;
  });
}

/** Kinds of slip, likeliest first: a dropped letter, two swapped, a wrong one, an extra one. */
const SLIPS = ['missing', 'swapped', 'wrong', 'extra'] as const;
type Slip = (typeof SLIPS)[number];

function likeliestTarget(typed: string[], targets: string[]): string | undefined {
  const found = new Map<Slip, Set<string>>();
  for (const t of typed) {
    for (const word of targets) {
      const slip = plausibleSlip(t, word);
      if (slip) found.set(slip, (found.get(slip) ?? new Set()).add(word));
    }
  }
  const best = SLIPS.map((s) => found.get(s)).find(Boolean);
  return best?.size === 1 ? [...best][0] : undefined;
}

function plausibleSlip(typed: string, word: string): Slip | null {
  const edit = singleEdit(typed, word);
  if (!edit || edit.at === 0) return null;
  // The last letter is the other one typists rarely miss; a change there mostly means another word.
  const touchesEnd = edit.slip === 'missing' ? edit.at === typed.length : edit.slip !== 'swapped' && edit.at === typed.length - 1;
  if (touchesEnd) return null;
  // A wrong or extra letter is a finger slip (a neighbouring key, a doubled letter) or a letter that
  // sounds alike ("sneekers", "necklase"), not any letter: "plant" is not a misspelt "plane".
  const typedLetter = typed[edit.at]!;
  if (edit.slip === 'wrong' && !soundAlike(typedLetter, word[edit.at]!) && !areNeighbourKeys(typedLetter, word[edit.at]!)) return null;
  const beside = [typed[edit.at - 1], typed[edit.at + 1]].filter((c): c is string => c !== undefined);
  if (edit.slip === 'extra' && !beside.some((c) => c === typedLetter || areNeighbourKeys(c, typedLetter))) return null;
  return edit.slip;
}

const SOUND_ALIKE = ['aeiouy', 'cks', 'sz'];
const soundAlike = (a: string, b: string) => SOUND_ALIKE.some((group) => group.includes(a) && group.includes(b));
const KEY_ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];

/** Keys that touch on a QWERTY keyboard (each row sits half a key right of the one above). */
function areNeighbourKeys(a: string, b: string): boolean {
  const at = (c: string) => KEY_ROWS.flatMap((row, r) => (row.includes(c) ? [[r, row.indexOf(c)] as const] : []))[0];
  const [pa, pb] = [at(a), at(b)];
  if (!pa || !pb) return false;
  if (pa[0] === pb[0]) return Math.abs(pa[1] - pb[1]) === 1;
  if (Math.abs(pa[0] - pb[0]) !== 1) return false;
  const [upper, lower] = pa[0] < pb[0] ? [pa[1], pb[1]] : [pb[1], pa[1]];
  return lower === upper || lower === upper - 1;
}

/** The one insertion, deletion, substitution or swap of neighbours that turns `typed` into `word`, if any. */
export function singleEdit(typed: string, word: string): { slip: Slip; at: number } | null {
  if (typed === word || Math.abs(typed.length - word.length) > 1) return null;
  let at = 0;
  while (typed[at] === word[at]) at++;
  if (typed.length < word.length) return typed.slice(at) === word.slice(at + 1) ? { slip: 'missing', at } : null;
  if (typed.length > word.length) return typed.slice(at + 1) === word.slice(at) ? { slip: 'extra', at } : null;
  if (typed.slice(at + 1) === word.slice(at + 1)) return { slip: 'wrong', at };
  const swapped = typed[at] === word[at + 1] && typed[at + 1] === word[at] && typed.slice(at + 2) === word.slice(at + 2);
  return swapped ? { slip: 'swapped', at } : null;
}

/**
 * A stated age: "10 year old", "10-year-old", "18 month old", "7 yo", optionally followed by the
 * person ("10 year old boy"), whose gender it keeps.
 */
function findAges(reading: Reading): AudienceMention[] {
  const found: AudienceMention[] = [];
  const { parts } = reading;
  for (let i = 0; i < parts.length; i++) {
    if (!/^\d{1,3}$/.test(parts[i]!.key)) continue;
    const unit = parts[i + 1]?.key;
    const old =
      unit === 'yo' ? i + 1 : parts[i + 2]?.key === 'old' && ['year', 'yr', 'yrs', 'month', 'week'].includes(unit ?? '') ? i + 2 : -1;
    if (old < 0) continue;
    const person = parts[old + 1] ? AUDIENCE_PHRASES.get(parts[old + 1]!.key) : undefined;
    const stage = stageOfAge(Number(parts[i]!.key), unit === 'month' || unit === 'week');
    found.push({ from: i, to: person ? old + 1 : old, trigger: { ...person, stage }, statedAge: true });
  }
  return found;
}

function stageOfAge(n: number, infantUnit: boolean): Stage {
  if (infantUnit || n <= 2) return 'baby';
  if (n <= 12) return 'kids';
  return n <= 19 ? 'teen' : 'adult';
}

/**
 * Audience and category phrases compete for the same words, longest first: "running shoes" is a
 * product (not a runner), "dog lover" an audience (not Pet Supplies). At equal length the audience
 * wins, so "kids" and "baby" say who it is for rather than naming the Baby & Kids aisle.
 */
function findMentions(reading: Reading, vocab: Vocabulary): { audiences: AudienceMention[]; categories: CategoryMention[] } {
  const ages = findAges(reading).filter((a, i, all) => isFree(reading, a, all.slice(0, i)));
  const found = findPhrases(reading, vocab.meanings, vocab.longest, ages);
  const audiences = [
    ...ages,
    ...found.flatMap(({ value, ...span }) => (value.trigger ? [{ ...span, trigger: value.trigger, statedAge: false }] : [])),
  ];
  // "for her son": "her" is a possessive there, and the person after it is the audience.
  const possessive = (m: AudienceMention) => keyOf(reading, m) === 'for her' && audiences.some((o) => o.from === m.to + 1);
  return {
    audiences: audiences.filter((m) => !possessive(m)).sort((a, b) => a.from - b.from),
    categories: found.flatMap(({ value, ...span }) => (value.senses ? [{ ...span, senses: value.senses }] : [])),
  };
}

// ---------------------------------------------------------------------------------------------
// Audience

interface AudienceReading {
  audience: ShoppingIntent['audience'];
  excludedL1: string[];
  hints: string[];
  refine: Record<string, string>;
  /** The person's gender and life stage as a product attribute (src/recommend/attributes.ts). */
  person: WantedAttribute | null;
}

/**
 * Several mentions combine ("my 10 year old son who loves running"): the label is the most specific
 * (an interest, then a child's life stage, then gender), the age comes from the stage, the exclusions
 * from the gender. A stated age outranks the stage a word implies ("my 30 year old son" is a man).
 */
function readAudience(mentions: AudienceMention[], normalized: string, reading: Reading): AudienceReading {
  const withStage = (stages: Stage[]) => mentions.find((m) => m.trigger.stage && stages.includes(m.trigger.stage));
  const stageMention = mentions.find((m) => m.statedAge) ?? withStage(['baby', 'teen']) ?? withStage(['kids']) ?? withStage(['adult']);
  const genderMention = mentions.find((m) => m.trigger.gender);
  const interestMention = mentions.find((m) => m.trigger.interest);
  const stage = stageMention ? STAGES[stageMention.trigger.stage!] : undefined;
  const gender = genderMention ? GENDERS[genderMention.trigger.gender!] : undefined;
  const choices: Array<[AudienceMention | undefined, string | undefined]> = [
    [interestMention, interestMention?.trigger.interest],
    [stage?.age ? stageMention : undefined, stage?.label],
    [genderMention, gender?.label],
    [stageMention, stage?.label],
  ];
  const [labelled, label] = choices.find(([m]) => m) ?? [];
  return {
    audience: labelled && label ? { label, phrase: audiencePhrase(labelled, normalized, reading), age: stage?.age ?? null } : null,
    excludedL1: gender?.excludedL1 ?? [],
    hints: interestMention ? INTERESTS[interestMention.trigger.interest!]! : (stage?.hints ?? []),
    refine: stage?.refine ?? {},
    person: audienceAttribute(
      genderMention?.trigger.gender ?? null,
      stageMention?.trigger.stage ?? null,
      (() => {
        const m = genderMention ?? stageMention;
        return m ? audiencePhrase(m, normalized, reading) : '';
      })(),
    ),
  };
}

/** The mention with the words that introduce it: "for my dad", "for a 10 year old boy". */
function audiencePhrase(m: Span, normalized: string, reading: Reading): string {
  const { parts } = reading;
  let from = m.from;
  if (from > 0 && AUDIENCE_LEAD.has(parts[from - 1]!.key)) from--;
  if (from > 0 && AUDIENCE_PREPOSITION.has(parts[from - 1]!.key)) from--;
  return spanText(normalized, reading, { from, to: m.to });
}

// ---------------------------------------------------------------------------------------------
// Categories

function resolveCategories(
  mentions: CategoryMention[],
  audience: AudienceReading,
  normalized: string,
  reading: Reading,
  vocab: Vocabulary,
): ResolvedCategory[] {
  const found: ResolvedCategory[] = [];
  for (const m of readNounPhrases(mentions, reading, vocab)) {
    const via = reading.corrected.slice(m.from, m.to + 1).some(Boolean) ? 'typo' : undefined;
    const term = spanText(normalized, reading, m);
    for (const sense of narrowSenses(m.senses, audience, vocab)) found.push(resolved(sense.category, via ?? sense.via, term, vocab));
  }
  // An L1 is implied by any of its L2s the text also names.
  const named = found.filter((c) => c.level === 2 || !found.some((l2) => l2.parent_id === c.category_id));
  const ordered = [...named.filter((c) => c.level === 2), ...named.filter((c) => c.level === 1)];
  return ordered.filter((c, i) => ordered.findIndex((o) => o.category_id === c.category_id) === i);
}

/**
 * Reads neighbouring category mentions as one noun phrase. Its last noun is the product: an L2
 * right before another ("vitamin c face serum", "coffee mug") only describes it. After a preposition
 * a category says where or for what it is used: "bed for my dog" reads as "dog bed" when that names
 * something, an L2 there is dropped ("trainers for the gym"), an L1 scopes the product ("mat for the car").
 */
function readNounPhrases(mentions: CategoryMention[], reading: Reading, vocab: Vocabulary): CategoryMention[] {
  const onlyL2 = (m: CategoryMention) => m.senses.every((s) => s.category.level === 2);
  const read: CategoryMention[] = [];
  for (const m of mentions) {
    const prev = read.at(-1);
    const between = prev ? reading.parts.slice(prev.to + 1, m.from).map((p) => p.key) : [];
    const link = between.filter((k) => STOP_WORDS.has(k) && !AUDIENCE_LEAD.has(k)).at(-1);
    if (prev && link && PREPOSITIONS.has(link)) {
      const compound = vocab.meanings.get(`${keyOf(reading, m)} ${keyOf(reading, prev)}`)?.senses;
      if (compound) read[read.length - 1] = { from: prev.from, to: m.to, senses: compound };
      else if (!onlyL2(m)) read.push(m);
    } else if (prev && !between.some((k) => STOP_WORDS.has(k)) && onlyL2(prev) && m.senses.some((s) => s.category.level === 2)) {
      read[read.length - 1] = m;
    } else {
      read.push(m);
    }
  }
  return read;
}

/**
 * A small child's L1 narrows to the child-sized L2; an ambiguous word drops the senses the audience
 * rules out, unless that would drop them all (then the text named it outright).
 */
function narrowSenses(senses: Sense[], audience: AudienceReading, vocab: Vocabulary): Sense[] {
  const refined = senses.map((s) => {
    const target = s.category.level === 1 ? own(audience.refine, s.category.name) : undefined;
    const child = target ? vocab.byName.get(target)?.[0] : undefined;
    return child ? { ...s, category: child } : s;
  });
  const allowed = refined.filter((s) => !audience.excludedL1.includes(l1Name(s.category, vocab)));
  return allowed.length ? allowed : refined;
}

function l1Name(c: CategoryRef, vocab: Vocabulary): string {
  return c.parent_id === null ? c.name : (vocab.byId.get(c.parent_id)?.name ?? c.name);
}

function resolved(c: CategoryRef, via: ResolvedCategory['via'], term: string, vocab: Vocabulary): ResolvedCategory {
  const parent = c.parent_id === null ? undefined : vocab.byId.get(c.parent_id);
  return {
    category_id: c.category_id,
    level: c.level,
    name: c.name,
    parent_id: c.parent_id,
    path: parent ? `${parent.name} > ${c.name}` : c.name,
    via,
    term,
  };
}

function hintCategories(audience: AudienceReading, vocab: Vocabulary): ResolvedCategory[] {
  const phrase = audience.audience?.phrase ?? '';
  return audience.hints.flatMap((name) => (vocab.byName.get(name) ?? []).map((c) => resolved(c, 'audience', phrase, vocab)));
}

// ---------------------------------------------------------------------------------------------
// Budget and region

type BudgetWord = { kind: BudgetWordKind; phrase: string };

function budgetFromText(parsed: ParsedBudget): NonNullable<ShoppingIntent['budget']> {
  const cents = (usd: number | undefined) => (usd === undefined ? null : Math.round(usd * 100));
  return { minCents: cents(parsed.min), maxCents: cents(parsed.max), phrase: parsed.phrase, source: 'text' };
}

function budgetFromWord(
  word: BudgetWord,
  categories: ResolvedCategory[],
  quartiles: PriceQuartiles | undefined,
): NonNullable<ShoppingIntent['budget']> {
  const { quartile, fallbackCents } = BUDGET_CUT[word.kind];
  const cuts = categories.flatMap((c) => quartiles?.get(c.category_id)?.[quartile] ?? []);
  const overall = quartiles?.get(ALL_CATEGORIES)?.[quartile];
  // Several categories: the cut that excludes least.
  const cents = cuts.length ? (word.kind === 'cheap' ? Math.max(...cuts) : Math.min(...cuts)) : (overall ?? fallbackCents);
  return {
    minCents: word.kind === 'premium' ? cents : null,
    maxCents: word.kind === 'cheap' ? cents : null,
    phrase: word.phrase,
    source: 'word',
  };
}

function readRegion(param: string | null | undefined, text: { code: string; phrase: string } | null): ShoppingIntent['region'] {
  const code = param?.trim().toUpperCase();
  if (code) return { code, source: 'param', phrase: null };
  return text && { code: text.code, source: 'text', phrase: text.phrase };
}

// ---------------------------------------------------------------------------------------------
// Keywords

/**
 * The content words of the shared reading (src/text/words.ts) that no person took: a word goes when
 * all its pieces were taken by the budget, region, filler, a measure or a person.
 */
function readKeywords(sentence: SentenceReading, audiences: AudienceMention[]): string[] {
  const byPerson = sentence.reading.parts.map(() => false);
  for (const m of audiences) for (let i = m.from; i <= m.to; i++) byPerson[i] = !m.trigger.activity;
  return contentWords(sentence, byPerson);
}

// ---------------------------------------------------------------------------------------------

export function understandShoppingIntent(
  query: string,
  opts: { region?: string | null; categories: CategoryRef[]; priceQuartiles?: PriceQuartiles },
): ShoppingIntent {
  const trimmed = query.trim();
  const normalized = normalizeQuery(trimmed);
  const vocab = vocabularyFor(opts.categories);

  const textBudget = parseBudget(normalized);
  // The text is read for a region even when the parameter wins, so "in Canada" is not a keyword.
  const textRegion = parseRegion(trimmed);
  const sentence = readSentence(normalized, { budgetPhrase: textBudget?.phrase, regionPhrase: textRegion?.phrase });
  const { reading, budgetWord } = sentence;
  correctTypos(reading, normalized, vocab);

  const mentions = findMentions(reading, vocab);
  const audience = readAudience(mentions.audiences, normalized, reading);
  const named = resolveCategories(mentions.categories, audience, normalized, reading, vocab);
  const categories = named.length ? named : hintCategories(audience, vocab);
  // What the text names outright is never ruled out: the filter would hide exactly what was asked for.
  const namedL1 = new Set(named.map((c) => l1Name(c, vocab)));
  const keywords = readKeywords(sentence, mentions.audiences);
  return {
    query: trimmed,
    normalized,
    keywords,
    phrase: keywords.join(' '),
    categories,
    excludedL1: audience.excludedL1.filter((name) => !namedL1.has(name)),
    budget: textBudget ? budgetFromText(textBudget) : budgetWord ? budgetFromWord(budgetWord, categories, opts.priceQuartiles) : null,
    audience: audience.audience,
    region: readRegion(opts.region, textRegion),
    attributes: withPerson(readSentenceAttributes(trimmed), audience.person),
  };
}

/** The person read above is the audience attribute; a "unisex" the text names only fills in a gender it did not say. */
function withPerson(read: WantedAttribute[], person: WantedAttribute | null): WantedAttribute[] {
  if (!person || person.kind !== 'audience') return read;
  const unisex = read.some((a) => a.kind === 'audience' && a.gender === 'unisex');
  const others = read.filter((a) => a.kind !== 'audience');
  return [...others, person.gender === null && unisex ? { ...person, gender: 'unisex' } : person];
}
