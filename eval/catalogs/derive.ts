/**
 * Writes the feeds of the stores whose published sample data is not in a format a merchant uploads
 * (eval/catalogs/README.md): each store's `source/` files, as committed, become the feed its platform
 * would export, in one of the formats the gateway imports (docs/CATALOG.md). Nothing is invented: a
 * field the source lacks stays out of the feed. Run by hand after changing a source or this file;
 * the evaluation imports the written feeds, never this script.
 *
 *   npx tsx eval/catalogs/derive.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';

const ROOT = import.meta.dirname;
const read = (p: string) => readFileSync(path.join(ROOT, p), 'utf8');
const csv = (p: string, opts: { trim?: boolean } = {}) =>
  parse(read(p), { columns: true, skip_empty_lines: true, trim: opts.trim ?? false, relax_column_count: true }) as Array<
    Record<string, string>
  >;

/** HTML to one line of text (a TSV field holds no newline). */
function oneLine(html: string): string {
  return html
    .replace(/<br\s*\/?>|<\/(p|li|ul|div)>/gi, ' ')
    .replace(/<li[^>]*>/gi, ' - ')
    .replace(/<[^>]+>/g, '')
    .replace(/&bull;/g, '-')
    .replace(/&trade;/g, '™')
    .replace(/&reg;/g, '®')
    .replace(/&amp;/g, '&')
    .replace(/&nbsp;/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&rsquo;|&lsquo;/g, "'")
    .replace(/&ldquo;|&rdquo;/g, '"')
    .replace(/&ndash;/g, '–')
    .replace(/&mdash;/g, '—')
    .replace(/&frac14;/g, '¼')
    .replace(/\s+/g, ' ')
    .trim();
}
const listOf = (s: string | undefined, sep: RegExp) =>
  (s ?? '')
    .split(sep)
    .map((x) => x.trim())
    .filter(Boolean);
const tsvField = (s: string) => s.replace(/[\t\r\n]+/g, ' ').trim();
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

// ---- Magento Luma sample store → Google Merchant Center TSV -------------------------------------

function magentoLuma(): string {
  const base = 'https://luma.example';
  const columns = [
    'id',
    'item_group_id',
    'title',
    'description',
    'link',
    'image_link',
    'availability',
    'price',
    'sale_price',
    'brand',
    'condition',
    'product_type',
    'color',
    'size',
    'material',
    'pattern',
    'gender',
    'age_group',
  ] as const;
  type Row = Partial<Record<(typeof columns)[number], string>>;
  const rows: Row[] = [];
  const attrs = (s: string) =>
    Object.fromEntries(
      s
        .split(',')
        .map((kv) => kv.split('='))
        .filter((kv) => kv.length === 2)
        .map(([k, v]) => [k!.trim(), v!.trim()]),
    ) as Record<string, string>;
  const genderOf = (p: string[]) => (p.includes('Men') ? 'male' : p.includes('Women') ? 'female' : p.length ? 'unisex' : '');
  // Configurable products (apparel): the parent row carries the product, its children the variants.
  const all = csv('magento-luma/source/products.csv');
  const bySku = new Map(all.map((r) => [r.sku!, r]));
  for (const parent of all.filter((r) => r.product_type === 'configurable')) {
    const paths = listOf(parent.categories, /,/).map((c) => c.split('/').slice(1));
    const main = paths.find((p) => p[0] === 'Men' || p[0] === 'Women') ?? paths.find((p) => p.length > 1) ?? [];
    const pa = attrs(parent.additional_attributes ?? '');
    for (const v of listOf(parent.configurable_variations, /\|/)) {
      const va = attrs(v);
      const child = bySku.get(va.sku!);
      if (!child) continue;
      const price = Number(child.price || parent.price);
      const special = Number(child.special_price || parent.special_price || 0);
      rows.push({
        id: va.sku,
        item_group_id: parent.sku,
        title: oneLine(parent.name!),
        description: oneLine(parent.description ?? ''),
        link: `${base}/${parent.url_key || slug(oneLine(parent.name!))}.html`,
        image_link: child.base_image || parent.base_image ? `${base}/media/catalog/product${child.base_image || parent.base_image}` : '',
        availability: Number(child.qty) > 0 && child.is_in_stock !== '0' ? 'in stock' : 'out of stock',
        price: `${price.toFixed(2)} USD`,
        sale_price: special > 0 && special < price ? `${special.toFixed(2)} USD` : '',
        brand: 'Luma',
        condition: 'new',
        product_type: main.join(' > '),
        color: va.color ?? '',
        size: va.size ?? '',
        material: oneLine(listOf(pa.material, /\|/).join('/')),
        pattern: pa.pattern ?? '',
        gender: genderOf(main),
        age_group: 'adult',
      });
    }
  }
  // Gear: simple products, one row each (the stability balls come in colours: grouped by model).
  for (const file of ['bags', 'fitness_equipment', 'fitness_equipment_ball', 'fitness_equipment_strap', 'watches']) {
    for (const r of csv(`magento-luma/source/products_gear_${file}.csv`)) {
      const cat = listOf(r.category, /\n/).slice(0, 2);
      const gender = listOf(r.gender, /\n/);
      const price = Number(r.price);
      const special = Number(r.special_price || 0);
      const group = file === 'fitness_equipment_ball' ? r.sku!.replace(/-[a-z]+$/, '') : '';
      const name = oneLine(r.name!);
      rows.push({
        id: r.sku,
        item_group_id: group,
        title: name,
        description: oneLine(r.description ?? ''),
        link: `${base}/${slug(r.url_key || name)}.html`,
        image_link: '',
        availability: Number(r.qty) > 0 ? 'in stock' : 'out of stock',
        price: `${price.toFixed(2)} USD`,
        sale_price: special > 0 && special < price ? `${special.toFixed(2)} USD` : '',
        brand: 'Luma',
        condition: 'new',
        product_type: cat.join(' > '),
        color: group ? (r.color ?? '') : '',
        size: r.size ?? '',
        material: oneLine(listOf(r.material, /\n/).join('/')),
        pattern: r.pattern ?? '',
        gender: gender.length === 1 ? (gender[0] === 'Men' ? 'male' : 'female') : gender.length ? 'unisex' : '',
        age_group: 'adult',
      });
    }
  }
  return [columns.join('\t'), ...rows.map((r) => columns.map((c) => tsvField(r[c] ?? '')).join('\t'))].join('\n') + '\n';
}

// ---- Vendure demo catalog → ACP product feed (JSON Lines) ----------------------------------------

function vendure(): string {
  const base = 'https://vendure-demo.example';
  const rows = csv('vendure-demo/source/products.csv', { trim: true });
  const products: Array<Record<string, unknown> & { variants: unknown[] }> = [];
  for (const r of rows) {
    if (r.name) {
      const facets = listOf(r.facets, /\|/).map((f) => f.split(':') as [string, string]);
      const categories = facets.filter(([k]) => k === 'category').map(([, v]) => v);
      const brand = facets.find(([k]) => k === 'brand')?.[1];
      products.push({
        id: r.slug,
        title: r.name,
        description: { plain: r.description },
        url: `${base}/products/${r.slug}`,
        media: listOf(r.assets, /\|/).map((a) => ({ type: 'image', url: `${base}/assets/${a}` })),
        ...(brand ? { brand } : {}),
        optionGroups: listOf(r.optionGroups, /\|/),
        categories,
        variants: [],
      });
    }
    const p = products.at(-1)!;
    const names = p.optionGroups as string[];
    const values = listOf(r.optionValues, /\|/);
    p.variants.push({
      id: r.sku,
      title: values.length ? values.join(' / ') : r.name,
      price: { amount: Math.round(Number(r.price) * 100), currency: 'USD' },
      availability: { available: Number(r.stockOnHand) > 0, status: Number(r.stockOnHand) > 0 ? 'in_stock' : 'out_of_stock' },
      categories: [{ value: (p.categories as string[]).join(' > ') }],
      variant_options: names.map((name, i) => ({ name, value: values[i] ?? '' })).filter((o) => o.value),
    });
  }
  return products.map(({ optionGroups: _o, categories: _c, ...p }) => JSON.stringify(p)).join('\n') + '\n';
}

// ---- UCP reference flower shop → the gateway's CSV ---------------------------------------------

function flowerShop(): string {
  const stock = new Map(csv('ucp-flower-shop/source/inventory.csv').map((r) => [r.product_id!, r.quantity!]));
  const lines = ['id,title,price,currency,inventory,image_link'];
  for (const r of csv('ucp-flower-shop/source/products.csv')) {
    // The shop stores prices in minor units (3500 = $35.00); the feed states them in dollars.
    const q = (s: string) => (/[",]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
    lines.push([r.id!, q(r.title!), (Number(r.price) / 100).toFixed(2), 'USD', stock.get(r.id!) ?? '', r.image_url!].join(','));
  }
  return lines.join('\n') + '\n';
}

// ---- UCP samples' grocery business agent (schema.org Products) → Merchant Center RSS 2.0 ----------

function grocery(): string {
  const products = JSON.parse(read('ucp-grocery/source/products.json')) as Array<{
    productID: string;
    name: string;
    sku: string;
    image: string[];
    brand: { name: string };
    offers: { price: string; priceCurrency: string; availability: string; itemCondition: string };
    url: string;
    description: string;
    gtin: string;
    mpn: string;
    category: string;
  }>;
  const x = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const items = products.map((p) =>
    [
      '    <item>',
      `      <g:id>${x(p.productID)}</g:id>`,
      `      <title>${x(p.name)}</title>`,
      `      <description>${x(p.description)}</description>`,
      `      <link>${x(p.url)}</link>`,
      `      <g:image_link>${x(p.image[0]!)}</g:image_link>`,
      `      <g:price>${x(p.offers.price)} ${x(p.offers.priceCurrency)}</g:price>`,
      `      <g:availability>${p.offers.availability.endsWith('InStock') ? 'in_stock' : 'out_of_stock'}</g:availability>`,
      `      <g:condition>${p.offers.itemCondition.endsWith('NewCondition') ? 'new' : 'used'}</g:condition>`,
      `      <g:brand>${x(p.brand.name)}</g:brand>`,
      `      <g:gtin>${x(p.gtin)}</g:gtin>`,
      `      <g:mpn>${x(p.mpn)}</g:mpn>`,
      `      <g:product_type>${x(p.category)}</g:product_type>`,
      '    </item>',
    ].join('\n'),
  );
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0">',
    '  <channel>',
    '    <title>UCP samples grocery store</title>',
    '    <link>https://example.com</link>',
    '    <description>The products of the UCP samples business agent</description>',
    ...items,
    '  </channel>',
    '</rss>',
    '',
  ].join('\n');
}

const outputs: Array<[string, () => string]> = [
  ['magento-luma/feed.tsv', magentoLuma],
  ['vendure-demo/feed.jsonl', vendure],
  ['ucp-flower-shop/feed.csv', flowerShop],
  ['ucp-grocery/feed.xml', grocery],
];
for (const [file, make] of outputs) {
  const text = make();
  writeFileSync(path.join(ROOT, file), text);
  console.log(`${file}: ${text.length} bytes`);
}
