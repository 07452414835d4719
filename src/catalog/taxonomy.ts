/**
 * The seed taxonomy and the vocabulary products are composed from. Category ids are fixed by
 * position (L1 first, then L2) so they stay stable across re-seeding; ids up to
 * SEED_CATEGORY_ID_LIMIT are reserved for this list and feed-created categories are numbered above.
 */

export const SEED_CATEGORY_ID_LIMIT = 1000;

export type Risk = 'low' | 'medium' | 'high';

export interface L2Def {
  name: string;
  nouns: string[];
  adjectives: string[];
  /** Typical list price range in USD. */
  price: [number, number];
  /** Categories that need more review (ingestibles, child safety, heating elements). */
  risk?: Risk;
}

export interface L1Def {
  name: string;
  brands: string[];
  features: string[];
  persona: string;
  age: string;
  benefits: Array<{ icon: string; title: string; desc: string }>;
  children: L2Def[];
}

const l2 = (name: string, nouns: string[], adjectives: string[], price: [number, number], risk?: Risk): L2Def => ({
  name,
  nouns,
  adjectives,
  price,
  risk,
});

export const TAXONOMY: L1Def[] = [
  {
    name: 'Beauty & Personal Care',
    brands: ['Glowlab', 'Dewy & Co', 'Lumière Skin', 'Petal Theory', 'Mira Beauty', 'Aurea', 'Softglow', 'Kindred Botanics'],
    features: [
      'Dermatologist tested and fragrance-free',
      'Vegan and cruelty-free formula',
      'Lightweight texture that absorbs quickly',
      'Travel-size friendly packaging',
    ],
    persona: 'Skincare and beauty enthusiasts who follow routine videos',
    age: '18-34',
    benefits: [
      { icon: 'sparkles', title: 'Visible results', desc: 'Before-and-after demos show the difference within a week.' },
      { icon: 'leaf', title: 'Clean formula', desc: 'Vegan, cruelty-free ingredients without harsh fragrance.' },
      { icon: 'droplet', title: 'Everyday routine', desc: 'Fits into a simple morning or evening routine.' },
    ],
    children: [
      l2(
        'Skincare',
        ['face serum', 'moisturizer', 'gel cleanser', 'mineral sunscreen', 'hydrating toner', 'eye cream'],
        ['hydrating', 'brightening', 'vitamin C', 'niacinamide', 'hyaluronic', 'soothing'],
        [9, 65],
      ),
      l2(
        'Makeup',
        ['liquid lipstick', 'foundation', 'volumizing mascara', 'eyeshadow palette', 'concealer', 'setting spray'],
        ['long-wear', 'matte', 'dewy', 'waterproof', 'buildable', 'satin'],
        [6, 48],
      ),
      l2(
        'Hair Care',
        ['repair shampoo', 'hair mask', 'argan hair oil', 'dry shampoo', 'leave-in conditioner'],
        ['bond-repair', 'volumizing', 'sulfate-free', 'nourishing', 'anti-frizz'],
        [8, 42],
      ),
      l2(
        'Fragrance',
        ['eau de parfum', 'body mist', 'perfume oil', 'solid perfume'],
        ['vanilla', 'citrus', 'floral', 'woody', 'amber', 'fresh'],
        [12, 120],
      ),
      l2(
        'Beauty Tools',
        ['hair dryer brush', 'jade facial roller', 'ceramic curling iron', 'makeup brush set', 'LED face mask'],
        ['ionic', 'professional', 'heated', 'cordless', 'salon-grade'],
        [15, 160],
        'medium',
      ),
    ],
  },
  {
    name: "Women's Clothing",
    brands: ['Linea', 'Marlowe', 'Saltwater Studio', 'Everly', 'June & Fox', 'Ardent', 'Soleil Knit', 'Cordova'],
    features: [
      'Soft stretch fabric with a flattering fit',
      'Machine washable and wrinkle-resistant',
      'True to size with an inclusive size range',
      'Breathable fabric for all-day wear',
    ],
    persona: 'Style-conscious shoppers who buy from try-on hauls',
    age: '18-40',
    benefits: [
      { icon: 'shirt', title: 'Flattering fit', desc: 'Try-on videos across sizes show how it really fits.' },
      { icon: 'wash', title: 'Easy care', desc: 'Machine washable and holds its shape.' },
      { icon: 'palette', title: 'Many colorways', desc: 'Several colors to match any wardrobe.' },
    ],
    children: [
      l2(
        'Dresses',
        ['midi dress', 'maxi dress', 'slip dress', 'wrap dress', 'sweater dress'],
        ['satin', 'ribbed', 'floral', 'linen', 'square-neck', 'tiered'],
        [22, 120],
      ),
      l2(
        'Tops & Blouses',
        ['blouse', 'crop top', 'button-down shirt', 'tank top', 'bodysuit'],
        ['oversized', 'silky', 'ribbed', 'puff-sleeve', 'cotton'],
        [12, 60],
      ),
      l2(
        'Activewear',
        ['high-waist leggings', 'sports bra', 'flare leggings', 'biker shorts', 'zip jacket'],
        ['buttery-soft', 'squat-proof', 'seamless', 'sculpting', 'moisture-wicking'],
        [18, 85],
      ),
      l2(
        'Outerwear',
        ['puffer jacket', 'trench coat', 'wool coat', 'denim jacket', 'fleece jacket'],
        ['cropped', 'oversized', 'water-resistant', 'quilted', 'belted'],
        [40, 220],
      ),
      l2(
        'Loungewear',
        ['pajama set', 'lounge set', 'robe', 'jogger set'],
        ['waffle-knit', 'modal', 'cozy', 'brushed', 'two-piece'],
        [18, 75],
      ),
    ],
  },
  {
    name: "Men's Clothing",
    brands: ['Northfield', 'Grainline', 'Iron & Oak', 'Baseline Co', 'Harbor Supply', 'Ridgeway', 'Common Thread', 'Vantage'],
    features: [
      'Pre-shrunk cotton that keeps its shape',
      'Reinforced seams for everyday wear',
      'Relaxed modern fit',
      'Moisture-wicking and quick-drying',
    ],
    persona: 'Everyday shoppers upgrading wardrobe basics',
    age: '18-45',
    benefits: [
      { icon: 'shirt', title: 'Better basics', desc: 'Heavier fabric than typical fast-fashion basics.' },
      { icon: 'ruler', title: 'Consistent sizing', desc: 'Size charts that match creator try-ons.' },
      { icon: 'repeat', title: 'Built to last', desc: 'Holds color and shape wash after wash.' },
    ],
    children: [
      l2(
        'T-Shirts',
        ['crew neck tee', 'pocket tee', 'henley', 'graphic tee', 'long sleeve tee'],
        ['heavyweight', 'boxy', 'slub cotton', 'vintage-wash', 'essential'],
        [12, 45],
      ),
      l2(
        'Hoodies & Sweatshirts',
        ['pullover hoodie', 'zip hoodie', 'crewneck sweatshirt', 'quarter-zip'],
        ['fleece-lined', 'oversized', 'garment-dyed', 'heavyweight', 'french terry'],
        [25, 90],
      ),
      l2(
        'Jeans & Pants',
        ['slim jeans', 'cargo pants', 'chinos', 'joggers', 'straight-leg jeans'],
        ['stretch', 'relaxed', 'tapered', 'ripstop', 'tech'],
        [28, 110],
      ),
      l2(
        'Jackets',
        ['bomber jacket', 'rain shell', 'chore coat', 'down jacket', 'softshell jacket'],
        ['packable', 'waterproof', 'insulated', 'canvas', 'lightweight'],
        [45, 260],
      ),
      l2(
        'Underwear & Socks',
        ['boxer briefs', 'crew socks', 'ankle socks', 'undershirt'],
        ['bamboo', 'breathable', 'cushioned', 'multipack', 'anti-odor'],
        [9, 40],
      ),
    ],
  },
  {
    name: 'Footwear',
    brands: ['Stride Lab', 'Kestrel', 'Pace & Peak', 'Urban Sole', 'Terrafoot', 'Loop Runner', 'Ember Trail', 'Nimbus Step'],
    features: [
      'Cushioned midsole for all-day comfort',
      'Grippy rubber outsole',
      'Breathable engineered mesh upper',
      'Removable insole that fits orthotics',
    ],
    persona: 'Runners, walkers and sneaker fans comparing on-foot reviews',
    age: '18-45',
    benefits: [
      { icon: 'footprints', title: 'All-day comfort', desc: 'Cushioning reviewers wear for 10+ hours.' },
      { icon: 'mountain', title: 'Grip you can trust', desc: 'Outsole tested on wet and loose terrain.' },
      { icon: 'wind', title: 'Breathable', desc: 'Mesh upper keeps feet cool on long days.' },
    ],
    children: [
      l2(
        'Running Shoes',
        ['trail running shoes', 'road running shoes', 'stability running shoes', 'racing flats'],
        ['lightweight', 'max-cushion', 'carbon-plate', 'responsive', 'waterproof'],
        [60, 220],
      ),
      l2(
        'Sneakers',
        ['low-top sneakers', 'high-top sneakers', 'canvas sneakers', 'slip-on sneakers', 'platform sneakers'],
        ['classic', 'leather', 'retro', 'minimalist', 'chunky'],
        [40, 180],
      ),
      l2(
        'Boots',
        ['chelsea boots', 'hiking boots', 'combat boots', 'snow boots', 'work boots'],
        ['waterproof', 'suede', 'lug-sole', 'insulated', 'steel-toe'],
        [60, 240],
      ),
      l2(
        'Sandals & Slides',
        ['cloud slides', 'sport sandals', 'flip flops', 'platform sandals'],
        ['cushioned', 'recovery', 'adjustable', 'quick-dry', 'orthopedic'],
        [15, 90],
      ),
      l2(
        "Kids' Shoes",
        ['kids sneakers', 'light-up shoes', 'kids rain boots', 'toddler sandals'],
        ['easy-on', 'velcro', 'flexible', 'non-slip', 'washable'],
        [20, 70],
      ),
    ],
  },
  {
    name: 'Bags & Accessories',
    brands: ['Carryall', 'Maison Vela', 'Fable & Thread', 'Atlas Goods', 'Lune Atelier', 'Brass & Bone', 'Kova', 'Tidewell'],
    features: [
      'Vegan leather that ages well',
      'Padded laptop sleeve and hidden pockets',
      'Hypoallergenic and tarnish-resistant',
      'Gift-ready packaging',
    ],
    persona: 'Gift shoppers and accessory lovers',
    age: '18-44',
    benefits: [
      { icon: 'gift', title: 'Gift-ready', desc: 'Arrives boxed and ready to give.' },
      { icon: 'shield', title: 'Durable materials', desc: 'Stitching and hardware built for daily use.' },
      { icon: 'star', title: 'Goes with everything', desc: 'Neutral design that pairs with any outfit.' },
    ],
    children: [
      l2(
        'Handbags',
        ['tote bag', 'crossbody bag', 'shoulder bag', 'mini bag', 'clutch'],
        ['quilted', 'vegan leather', 'woven', 'structured', 'nylon'],
        [25, 180],
      ),
      l2(
        'Backpacks',
        ['laptop backpack', 'travel backpack', 'mini backpack', 'rolltop backpack'],
        ['anti-theft', 'water-resistant', 'expandable', 'carry-on', 'lightweight'],
        [30, 160],
      ),
      l2(
        'Wallets',
        ['card holder', 'bifold wallet', 'phone wallet', 'zip wallet'],
        ['RFID-blocking', 'slim', 'leather', 'magnetic', 'minimalist'],
        [12, 70],
      ),
      l2(
        'Jewelry',
        ['gold hoop earrings', 'pendant necklace', 'charm bracelet', 'stacking rings', 'huggie earrings'],
        ['18k gold-plated', 'sterling silver', 'dainty', 'waterproof', 'pearl'],
        [12, 120],
      ),
      l2(
        'Watches',
        ['smart analog watch', 'dress watch', 'dive watch', 'minimalist watch'],
        ['automatic', 'stainless steel', 'mesh-strap', 'sapphire', 'solar'],
        [40, 350],
      ),
      l2(
        'Sunglasses',
        ['aviator sunglasses', 'cat-eye sunglasses', 'sport sunglasses', 'square sunglasses'],
        ['polarized', 'UV400', 'oversized', 'acetate', 'retro'],
        [15, 140],
      ),
    ],
  },
  {
    name: 'Electronics',
    brands: ['Voltra', 'Sonique', 'Pixelon', 'Nexa', 'Arcwave', 'Hyperlume', 'Quanta', 'Orbitron'],
    features: [
      'Long battery life with fast USB-C charging',
      'Bluetooth 5.3 with stable pairing',
      '12-month warranty and easy returns',
      'Compact design that fits in a pocket',
    ],
    persona: 'Tech buyers who watch unboxings and comparisons',
    age: '18-44',
    benefits: [
      { icon: 'battery', title: 'Long battery life', desc: 'Tested by creators over full days of use.' },
      { icon: 'zap', title: 'Fast charging', desc: 'USB-C fast charging tops up in minutes.' },
      { icon: 'shield-check', title: 'Warranty included', desc: '12-month warranty and easy returns.' },
    ],
    children: [
      l2(
        'Headphones & Earbuds',
        ['wireless earbuds', 'noise-cancelling headphones', 'open-ear earbuds', 'gaming headset'],
        ['active noise-cancelling', 'wireless', 'hi-res', 'sweatproof', 'low-latency'],
        [20, 300],
      ),
      l2(
        'Phone Accessories',
        ['MagSafe power bank', 'phone case', 'fast charger', 'phone tripod', 'screen protector'],
        ['magnetic', 'shockproof', 'GaN', 'slim', 'foldable'],
        [8, 80],
      ),
      l2(
        'Smart Home',
        ['smart plug', 'video doorbell', 'smart bulb', 'indoor security camera', 'robot vacuum'],
        ['Wi-Fi', 'voice-controlled', 'color-changing', '2K', 'self-emptying'],
        [12, 400],
      ),
      l2(
        'Wearables',
        ['fitness tracker', 'smartwatch', 'smart ring', 'kids smartwatch'],
        ['waterproof', 'AMOLED', 'GPS', 'sleep-tracking', 'ultra-thin'],
        [30, 350],
      ),
      l2(
        'Cameras & Drones',
        ['mini drone', 'action camera', 'instant camera', 'vlogging kit', 'dash cam'],
        ['4K', 'stabilized', 'foldable', 'waterproof', 'compact'],
        [40, 600],
        'medium',
      ),
      l2(
        'Portable Speakers',
        ['bluetooth speaker', 'party speaker', 'shower speaker', 'soundbar'],
        ['waterproof', 'rugged', 'RGB', '360-degree', 'bass-boosted'],
        [20, 250],
      ),
    ],
  },
  {
    name: 'Computers & Office',
    brands: ['Deskcraft', 'Keystone', 'Officio', 'Luma Desk', 'Bitforge', 'Paperloft', 'Ergonova', 'Clicksmith'],
    features: [
      'Plug-and-play on Mac and Windows',
      'Ergonomic design for long work sessions',
      'Sturdy build with a two-year warranty',
      'Cable management built in',
    ],
    persona: 'Remote workers and students upgrading their desk setup',
    age: '18-44',
    benefits: [
      { icon: 'monitor', title: 'Desk setup upgrade', desc: 'Featured in popular desk-setup videos.' },
      { icon: 'activity', title: 'Ergonomic', desc: 'Designed for long work sessions without strain.' },
      { icon: 'plug', title: 'Plug and play', desc: 'Works on Mac and Windows out of the box.' },
    ],
    children: [
      l2(
        'Laptop Accessories',
        ['laptop stand', 'USB-C hub', 'laptop sleeve', 'cooling pad'],
        ['aluminum', 'adjustable', '7-in-1', 'foldable', 'slim'],
        [15, 90],
      ),
      l2(
        'Keyboards & Mice',
        ['mechanical keyboard', 'wireless mouse', 'ergonomic mouse', 'keyboard and mouse combo'],
        ['hot-swappable', 'silent', 'RGB', 'low-profile', 'rechargeable'],
        [15, 180],
      ),
      l2(
        'Monitors',
        ['portable monitor', 'curved monitor', '4K monitor', 'monitor light bar'],
        ['27-inch', 'IPS', 'high-refresh', 'USB-C', 'anti-glare'],
        [40, 500],
      ),
      l2(
        'Office Supplies',
        ['gel pens', 'planner', 'sticky notes set', 'desk organizer', 'label maker'],
        ['undated', 'quick-dry', 'pastel', 'refillable', 'bluetooth'],
        [6, 60],
      ),
      l2(
        'Desk Furniture',
        ['standing desk', 'ergonomic chair', 'desk mat', 'footrest'],
        ['electric', 'mesh', 'height-adjustable', 'oversized', 'memory foam'],
        [20, 450],
      ),
    ],
  },
  {
    name: 'Home & Kitchen',
    brands: ['Hearth & Home', 'Nestwell', 'Copperleaf', 'Casa Linea', 'Oakridge Living', 'Kitchin', 'Tidy Nook', 'Maple & Salt'],
    features: [
      'Dishwasher safe and easy to clean',
      'Non-toxic materials, PFAS-free',
      'Space-saving design for small homes',
      'Backed by a lifetime guarantee',
    ],
    persona: 'Home cooks and renters making their space work better',
    age: '25-54',
    benefits: [
      { icon: 'home', title: 'Saves space', desc: 'Designed for small kitchens and apartments.' },
      { icon: 'check-circle', title: 'Easy to clean', desc: 'Dishwasher safe, wipes clean in seconds.' },
      { icon: 'heart', title: 'Non-toxic', desc: 'PFAS-free materials you can cook with daily.' },
    ],
    children: [
      l2(
        'Cookware',
        ['nonstick frying pan', 'cast iron skillet', 'cookware set', 'dutch oven', 'stainless saucepan'],
        ['ceramic', 'PFAS-free', 'tri-ply', 'enameled', 'induction-ready'],
        [20, 250],
      ),
      l2(
        'Small Kitchen Appliances',
        ['air fryer', 'portable blender', 'espresso machine', 'electric kettle', 'rice cooker'],
        ['compact', 'digital', 'rechargeable', 'smart', 'stainless'],
        [25, 300],
        'medium',
      ),
      l2(
        'Bedding',
        ['duvet cover set', 'cooling pillow', 'silk pillowcase', 'weighted blanket', 'sheet set'],
        ['linen', 'bamboo', 'cooling', 'hotel-quality', 'organic cotton'],
        [20, 200],
      ),
      l2(
        'Home Decor',
        ['table lamp', 'wall mirror', 'throw pillow covers', 'scented candle', 'faux plant'],
        ['minimalist', 'boho', 'arched', 'ceramic', 'rattan'],
        [12, 150],
      ),
      l2(
        'Storage & Organization',
        ['drawer organizers', 'stackable bins', 'closet system', 'vacuum storage bags', 'spice rack'],
        ['clear', 'stackable', 'expandable', 'bamboo', 'magnetic'],
        [10, 120],
      ),
      l2(
        'Cleaning Supplies',
        ['spin mop', 'cleaning paste', 'handheld vacuum', 'microfiber cloths', 'scrub brush set'],
        ['cordless', 'multi-surface', 'reusable', 'eco', 'heavy-duty'],
        [8, 150],
      ),
    ],
  },
  {
    name: 'Health & Wellness',
    brands: ['Vitalis', 'Purely Well', 'Restore Labs', 'Evergreen Nutrition', 'Calm Theory', 'Flexa', 'Brightsmile', 'Core & Co'],
    features: [
      'Third-party tested for quality',
      'Made in a GMP-certified facility',
      'Compact enough to use at home or travel',
      'Quiet operation with multiple intensity levels',
    ],
    persona: 'Wellness-minded shoppers building healthier habits',
    age: '25-54',
    benefits: [
      { icon: 'heart-pulse', title: 'Daily wellness', desc: 'Easy to fit into a daily routine.' },
      { icon: 'badge-check', title: 'Quality tested', desc: 'Third-party tested, made in certified facilities.' },
      { icon: 'smile', title: 'Loved by reviewers', desc: 'Creators share honest results after weeks of use.' },
    ],
    children: [
      l2(
        'Vitamins & Supplements',
        ['collagen peptides', 'magnesium gummies', 'multivitamin', 'probiotic capsules', 'electrolyte powder'],
        ['unflavored', 'sugar-free', 'vegan', 'high-potency', 'daily'],
        [12, 60],
        'medium',
      ),
      l2(
        'Fitness Equipment',
        ['adjustable dumbbells', 'resistance bands set', 'walking pad', 'jump rope', 'kettlebell'],
        ['adjustable', 'compact', 'foldable', 'weighted', 'home-gym'],
        [12, 400],
      ),
      l2(
        'Massage & Recovery',
        ['massage gun', 'foam roller', 'neck massager', 'heating pad', 'compression boots'],
        ['percussion', 'heated', 'cordless', 'deep-tissue', 'vibrating'],
        [15, 250],
        'medium',
      ),
      l2(
        'Oral Care',
        ['electric toothbrush', 'water flosser', 'whitening strips', 'tongue scraper'],
        ['sonic', 'cordless', 'enamel-safe', 'rechargeable', 'travel'],
        [8, 120],
      ),
      l2(
        'Sleep & Relaxation',
        ['sleep mask', 'sunrise alarm clock', 'white noise machine', 'aromatherapy diffuser'],
        ['contoured', 'blackout', 'smart', 'ultrasonic', 'silk'],
        [10, 90],
      ),
    ],
  },
  {
    name: 'Sports & Outdoors',
    brands: ['Summit Forge', 'Wildtrail', 'Riverstone', 'Peakline', 'Basecamp Co', 'Tidal Outfitters', 'Gritworks', 'Altus'],
    features: [
      'Weather-resistant construction',
      'Packs down small for travel',
      'Tested on real trails and campsites',
      'Lightweight without cutting durability',
    ],
    persona: 'Outdoor and fitness hobbyists planning their next trip',
    age: '18-54',
    benefits: [
      { icon: 'mountain', title: 'Trail tested', desc: 'Proven on real trips, not just in the studio.' },
      { icon: 'feather', title: 'Lightweight', desc: 'Packs small and carries light.' },
      { icon: 'cloud-rain', title: 'Weatherproof', desc: 'Built for rain, dust and rough handling.' },
    ],
    children: [
      l2(
        'Camping Gear',
        ['camping tent', 'sleeping bag', 'camping lantern', 'camp chair', 'portable stove'],
        ['ultralight', 'pop-up', 'rechargeable', 'four-season', 'compact'],
        [15, 350],
      ),
      l2(
        'Cycling',
        ['bike light set', 'cycling helmet', 'bike phone mount', 'padded cycling shorts'],
        ['USB-rechargeable', 'MIPS', 'aero', 'reflective', 'quick-release'],
        [12, 180],
        'medium',
      ),
      l2(
        'Yoga & Pilates',
        ['yoga mat', 'yoga blocks', 'pilates ring', 'yoga strap'],
        ['non-slip', 'cork', 'extra-thick', 'eco', 'alignment'],
        [10, 110],
      ),
      l2(
        'Fishing',
        ['spinning reel', 'tackle box', 'fishing rod combo', 'fishing lure kit'],
        ['saltwater', 'telescopic', 'ultralight', 'pre-rigged', 'carbon'],
        [15, 220],
      ),
      l2(
        'Drinkware',
        ['insulated tumbler', 'water bottle', 'hydration pack', 'travel mug'],
        ['40 oz', 'leakproof', 'stainless steel', 'vacuum-insulated', 'straw-lid'],
        [12, 60],
      ),
    ],
  },
  {
    name: 'Toys & Games',
    brands: ['Brightblock', 'Wonderwell', 'PlayNest', 'Cubby', 'Kitekin', 'Puzzlewood', 'Tiny Titans', 'Funforge'],
    features: [
      'Safety tested to ASTM and EN71 standards',
      'Screen-free play that builds skills',
      'Durable for years of play',
      'Makes a great birthday gift',
    ],
    persona: 'Parents and gift buyers looking for screen-free play',
    age: '25-44',
    benefits: [
      { icon: 'shield-check', title: 'Safety tested', desc: 'Meets ASTM and EN71 toy safety standards.' },
      { icon: 'brain', title: 'Builds skills', desc: 'Encourages problem solving and creativity.' },
      { icon: 'gift', title: 'Great gift', desc: 'A crowd-pleaser for birthdays and holidays.' },
    ],
    children: [
      l2(
        'Building Sets',
        ['magnetic tiles', 'brick building set', 'marble run', 'STEM robot kit'],
        ['100-piece', 'creative', 'glow-in-the-dark', 'programmable', 'deluxe'],
        [15, 150],
      ),
      l2(
        'Plush Toys',
        ['plush toy', 'weighted plush', 'squishy pillow', 'stuffed animal'],
        ['jumbo', 'ultra-soft', 'collectible', 'cuddly', 'mini'],
        [8, 50],
      ),
      l2(
        'Board Games',
        ['party card game', 'strategy board game', 'family trivia game', 'cooperative game'],
        ['award-winning', 'quick-play', 'expansion', 'travel', 'family'],
        [10, 70],
      ),
      l2(
        'Educational Toys',
        ['drawing tablet', 'montessori busy board', 'science kit', 'kids microscope', 'coding toy'],
        ['LCD', 'wooden', 'hands-on', 'interactive', 'bilingual'],
        [10, 90],
      ),
      l2(
        'Outdoor Play',
        ['bubble machine', 'water blaster', 'kids scooter', 'kite', 'swing set'],
        ['automatic', 'foldable', 'light-up', 'adjustable', 'backyard'],
        [10, 200],
        'medium',
      ),
    ],
  },
  {
    name: 'Baby & Kids',
    brands: ['Little Nest', 'Sprout & Co', 'Cuddlebug', 'Bambini', 'Moonbeam Baby', 'Tiny Steps', 'Hushaby', 'Acorn Kids'],
    features: [
      'BPA-free and easy to sterilize',
      'Pediatrician recommended design',
      'Soft organic materials for sensitive skin',
      'One-hand operation for busy parents',
    ],
    persona: 'New and expecting parents',
    age: '25-40',
    benefits: [
      { icon: 'baby', title: 'Parent approved', desc: 'Recommended by parents in real routines.' },
      { icon: 'shield', title: 'Safe materials', desc: 'BPA-free and organic where it touches skin.' },
      { icon: 'clock', title: 'Saves time', desc: 'One-hand design for busy days.' },
    ],
    children: [
      l2(
        'Diapering',
        ['diaper bag backpack', 'changing pad', 'wipe warmer', 'diaper pail'],
        ['waterproof', 'portable', 'odor-locking', 'wipeable', 'convertible'],
        [15, 90],
      ),
      l2(
        'Feeding',
        ['baby bottles set', 'silicone bib', 'high chair', 'suction plates', 'bottle warmer'],
        ['anti-colic', 'BPA-free', 'silicone', 'adjustable', 'fast'],
        [10, 200],
      ),
      l2(
        'Strollers & Car Seats',
        ['compact stroller', 'convertible car seat', 'baby carrier', 'jogging stroller'],
        ['lightweight', 'travel', 'ergonomic', 'one-hand fold', 'all-terrain'],
        [40, 450],
        'high',
      ),
      l2(
        'Baby Clothing',
        ['sleep sack', 'bodysuit multipack', 'zip footie', 'swaddle blanket'],
        ['organic cotton', 'bamboo', 'muslin', 'convertible', 'breathable'],
        [12, 60],
      ),
      l2(
        'Nursery',
        ['baby monitor', 'sound machine', 'night light', 'crib sheets', 'bassinet'],
        ['video', 'split-screen', 'dimmable', 'fitted', 'bedside'],
        [15, 260],
        'medium',
      ),
    ],
  },
  {
    name: 'Pet Supplies',
    brands: ['Pawsome', 'Whisker & Tail', 'Barkley', 'Furwell', 'Happy Paws Co', 'Purrfect Home', 'Trailhound', 'Kibble & Co'],
    features: [
      'Vet-recommended design',
      'Chew-resistant and easy to wash',
      'Made with natural ingredients',
      'Sized for small to large breeds',
    ],
    persona: 'Pet parents who shop from pet-reaction videos',
    age: '25-54',
    benefits: [
      { icon: 'paw-print', title: 'Pets love it', desc: 'Real pet reactions in creator videos.' },
      { icon: 'stethoscope', title: 'Vet recommended', desc: 'Designed with veterinarian input.' },
      { icon: 'sparkles', title: 'Easy to clean', desc: 'Machine washable or wipe clean.' },
    ],
    children: [
      l2(
        'Dog Food & Treats',
        ['dental chews', 'freeze-dried treats', 'grain-free kibble', 'training treats'],
        ['single-ingredient', 'high-protein', 'grain-free', 'natural', 'low-calorie'],
        [8, 80],
        'medium',
      ),
      l2(
        'Cat Supplies',
        ['self-cleaning litter box', 'cat tree', 'water fountain', 'scratching post'],
        ['automatic', 'odor-control', 'sisal', 'quiet', 'modern'],
        [15, 400],
      ),
      l2(
        'Pet Toys',
        ['interactive cat toy', 'chew toy', 'puzzle feeder', 'rope toy', 'ball launcher'],
        ['indestructible', 'motion-activated', 'squeaky', 'treat-dispensing', 'automatic'],
        [6, 90],
      ),
      l2(
        'Pet Beds',
        ['calming dog bed', 'orthopedic pet bed', 'cat cave', 'cooling mat'],
        ['donut', 'memory foam', 'washable', 'self-warming', 'bolster'],
        [18, 140],
      ),
      l2(
        'Grooming',
        ['deshedding brush', 'pet hair remover', 'nail grinder', 'grooming kit', 'pet shampoo'],
        ['self-cleaning', 'quiet', 'cordless', 'oatmeal', 'professional'],
        [8, 80],
      ),
    ],
  },
  {
    name: 'Food & Beverage',
    brands: ['Harvest Table', 'Crumb & Co', 'Roastery Row', 'Golden Spoon', 'Sipwell', 'Nutty Nest', 'Fieldhouse Foods', 'Snackwise'],
    features: [
      'Small-batch and made with real ingredients',
      'No artificial colors or preservatives',
      'Resealable packaging stays fresh',
      'Ships fast in insulated packaging',
    ],
    persona: 'Snack lovers and home baristas trying viral foods',
    age: '18-44',
    benefits: [
      { icon: 'utensils', title: 'Real ingredients', desc: 'No artificial colors or preservatives.' },
      { icon: 'flame', title: 'Viral flavor', desc: 'The taste test creators keep coming back to.' },
      { icon: 'package', title: 'Stays fresh', desc: 'Resealable packs that travel well.' },
    ],
    children: [
      l2(
        'Snacks',
        ['protein chips', 'freeze-dried candy', 'trail mix', 'seaweed snacks', 'protein bars'],
        ['spicy', 'keto', 'crunchy', 'variety-pack', 'low-sugar'],
        [5, 40],
        'medium',
      ),
      l2(
        'Coffee & Tea',
        ['whole bean coffee', 'matcha powder', 'cold brew concentrate', 'loose leaf tea'],
        ['single-origin', 'ceremonial-grade', 'organic', 'dark roast', 'decaf'],
        [9, 45],
        'medium',
      ),
      l2(
        'Pantry',
        ['hot honey', 'chili crisp', 'olive oil', 'pasta sauce', 'seasoning blend'],
        ['small-batch', 'extra virgin', 'garlic', 'truffle', 'all-purpose'],
        [6, 35],
        'medium',
      ),
      l2(
        'Beverages',
        ['sparkling water', 'energy drink mix', 'prebiotic soda', 'coconut water'],
        ['zero-sugar', 'variety-pack', 'electrolyte', 'natural', 'caffeinated'],
        [10, 50],
        'medium',
      ),
      l2(
        'Sweets & Baking',
        ['cookie mix', 'chocolate bar', 'sprinkles set', 'gummy candy'],
        ['gluten-free', 'dark', 'rainbow', 'sour', 'vegan'],
        [5, 30],
        'medium',
      ),
    ],
  },
  {
    name: 'Automotive',
    brands: ['Roadwise', 'Gearhead Co', 'Drivetrue', 'Motorline', 'Autoluxe', 'Torque & Tread', 'Highway Labs', 'Shinepro'],
    features: [
      'Universal fit for most cars and SUVs',
      'Installs in minutes without tools',
      'Built to handle heat and vibration',
      'Backed by a one-year warranty',
    ],
    persona: 'Drivers upgrading and caring for their cars',
    age: '21-54',
    benefits: [
      { icon: 'car', title: 'Universal fit', desc: 'Fits most cars, SUVs and trucks.' },
      { icon: 'wrench', title: 'Tool-free install', desc: 'Installs in minutes, no mechanic needed.' },
      { icon: 'thermometer', title: 'Built tough', desc: 'Handles heat, cold and road vibration.' },
    ],
    children: [
      l2(
        'Car Electronics',
        ['wireless CarPlay adapter', 'car phone mount', 'tire inflator', 'jump starter', 'car vacuum'],
        ['portable', 'magnetic', 'cordless', 'digital', 'compact'],
        [15, 160],
        'medium',
      ),
      l2(
        'Interior Accessories',
        ['seat organizer', 'car trash can', 'seat cushion', 'sun shade', 'floor mats'],
        ['leakproof', 'foldable', 'memory foam', 'custom-fit', 'waterproof'],
        [10, 120],
      ),
      l2(
        'Car Care',
        ['ceramic coating spray', 'car wash kit', 'interior detailer', 'microfiber towels', 'clay bar kit'],
        ['hydrophobic', 'streak-free', 'pH-neutral', 'plush', 'professional'],
        [8, 70],
      ),
      l2(
        'Tools & Equipment',
        ['socket set', 'cordless impact wrench', 'OBD2 scanner', 'work light'],
        ['metric', 'brushless', 'bluetooth', 'magnetic', 'rechargeable'],
        [20, 250],
      ),
    ],
  },
];

export const REGIONS: Array<{ code: string; name: string }> = [
  { code: 'US', name: 'United States' },
  { code: 'GB', name: 'United Kingdom' },
  { code: 'CA', name: 'Canada' },
  { code: 'AU', name: 'Australia' },
  { code: 'DE', name: 'Germany' },
  { code: 'FR', name: 'France' },
  { code: 'ES', name: 'Spain' },
  { code: 'IT', name: 'Italy' },
  { code: 'NL', name: 'Netherlands' },
  { code: 'JP', name: 'Japan' },
  { code: 'SG', name: 'Singapore' },
  { code: 'MY', name: 'Malaysia' },
  { code: 'TH', name: 'Thailand' },
  { code: 'MX', name: 'Mexico' },
  { code: 'BR', name: 'Brazil' },
];

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** L2 slugs carry their parent's slug: L2 names like "Accessories" repeat across L1s. */
export function categorySlug(l1: string, l2?: string | null): string {
  return l2 ? `${slugify(l1)}--${slugify(l2)}` : slugify(l1);
}

export interface SeedCategory {
  category_id: number;
  parent_id: number | null;
  level: 1 | 2;
  name: string;
  slug: string;
}

/** The taxonomy flattened with fixed ids: L1 categories 1..L, then L2 categories in order. */
export function seedCategories(): SeedCategory[] {
  const out: SeedCategory[] = TAXONOMY.map((l1, i) => ({
    category_id: i + 1,
    parent_id: null,
    level: 1,
    name: l1.name,
    slug: categorySlug(l1.name),
  }));
  let next = TAXONOMY.length + 1;
  TAXONOMY.forEach((l1, i) => {
    for (const c of l1.children)
      out.push({ category_id: next++, parent_id: i + 1, level: 2, name: c.name, slug: categorySlug(l1.name, c.name) });
  });
  return out;
}

/** Lower-case search keywords from the words of a title, brand and category names. */
export function searchTags(...texts: Array<string | null | undefined>): string[] {
  const out = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (word.length >= 2 && !STOP_WORDS.has(word)) out.add(word);
  }
  return [...out];
}

const STOP_WORDS = new Set(['and', 'the', 'for', 'with', 'of', 'in', 'on', 'to', 'a', 'an', 'co']);
