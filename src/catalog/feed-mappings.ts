import type { FeedFormat, RawRecord } from './feed-format';

/**
 * From each feed format's own shape to the one flat record the importer validates (the mapping
 * tables in docs/CATALOG.md). Flat formats (the gateway's CSV/JSONL, Merchant Center TSV and XML,
 * the flat ACP fields) already are flat records; a Shopify export spreads a product over several
 * rows and an ACP product nests its variants, so those two are regrouped here: every purchasable
 * variant becomes one record carrying its product's fields and `item_group_id` = the product id.
 */

export interface MappingOptions {
  /** Currency of prices that name none (a Shopify export never does). */
  defaultCurrency: string;
  /** Storefront origin: a Shopify product's link is `${storeUrl}/products/${handle}`. */
  storeUrl?: string | null;
}

export async function* canonicalRecords(
  format: FeedFormat,
  records: AsyncGenerator<RawRecord>,
  opts: MappingOptions,
): AsyncGenerator<RawRecord> {
  if (format === 'shopify_csv') yield* shopifyRecords(records, opts);
  else if (format === 'acp_jsonl') {
    for await (const r of records) {
      if ('error' in r || !Array.isArray(r.values.variants)) yield r;
      else yield* acpProductRecords(r.line, r.values);
    }
  } else yield* records;
}

/** HTML (a Shopify `Body (HTML)`, an ACP `description.html`) reduced to plain text with its paragraph breaks. */
export function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<li[^>]*>/gi, '\n- ')
      .replace(/<\/(p|div|h[1-6]|li|ul|ol|tr|table|blockquote|section)>/gi, '\n')
      .replace(/<[^>]+>/g, ''),
  )
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{2,}/g, '\n')
    .trim();
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  mdash: '—',
  ndash: '–',
  hellip: '…',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
  eacute: 'é',
  trade: '™',
  reg: '®',
  copy: '©',
};

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : m;
    }
    return ENTITIES[e.toLowerCase()] ?? m;
  });
}

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

/**
 * A Shopify product CSV export: the rows of one product are consecutive under its Handle. The first
 * row carries the product (Title, Body (HTML), Vendor, Type, Tags, Published, Status, option names);
 * each row with a Variant Price or option value is a variant; rows with only an Image Src add images.
 */
async function* shopifyRecords(records: AsyncGenerator<RawRecord>, opts: MappingOptions): AsyncGenerator<RawRecord> {
  let group: Array<{ line: number; values: Record<string, unknown> }> = [];
  let handle = '';
  for await (const r of records) {
    if ('error' in r) {
      yield r;
      continue;
    }
    const h = str(r.values.handle);
    if (!h) {
      yield { line: r.line, error: 'Handle is missing' };
      continue;
    }
    if (h !== handle && group.length) {
      yield* shopifyProduct(group, opts);
      group = [];
    }
    handle = h;
    group.push(r);
  }
  if (group.length) yield* shopifyProduct(group, opts);
}

function* shopifyProduct(rows: Array<{ line: number; values: Record<string, unknown> }>, opts: MappingOptions): Generator<RawRecord> {
  const first = rows[0]!;
  const p = first.values;
  const handle = str(p.handle);
  const status = str(p.status).toLowerCase();
  const published = str(p.published).toLowerCase();
  if (status && status !== 'active') {
    yield { line: first.line, error: `product ${JSON.stringify(handle)} is ${status} (Status), not imported` };
    return;
  }
  if (published === 'false' || published === 'no' || published === '0') {
    yield { line: first.line, error: `product ${JSON.stringify(handle)} is not published (Published FALSE), not imported` };
    return;
  }
  const images = rows
    .filter((r) => str(r.values['image src']))
    .map((r) => ({ src: str(r.values['image src']), pos: Number(str(r.values['image position'])) || Infinity, line: r.line }))
    .sort((a, b) => a.pos - b.pos || a.line - b.line)
    .map((i) => i.src);
  const optionNames = [1, 2, 3].map((n) => str(p[`option${n} name`]));
  const variants = rows.filter((r) => str(r.values['variant price']) || str(r.values['option1 value']) || str(r.values['variant sku']));
  if (!variants.length) {
    yield { line: first.line, error: `product ${JSON.stringify(handle)} has no variant row (Variant Price)` };
    return;
  }
  const tags = str(p.tags)
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const description = htmlToText(str(p['body (html)']));
  for (const [i, v] of variants.entries()) {
    const x = v.values;
    const options = optionNames
      .map((name, k) => ({ name, value: str(x[`option${k + 1} value`]) }))
      .filter((o) => o.name && o.value && !(o.name === 'Title' && o.value === 'Default Title'));
    const sku = str(x['variant sku']);
    const grams = str(x['variant grams']);
    const qty = str(x['variant inventory qty']);
    const policy = str(x['variant inventory policy']).toLowerCase();
    yield {
      line: v.line,
      values: {
        id: sku || (options.length ? `${handle}:${options.map((o) => o.value).join('/')}` : `${handle}:${i + 1}`),
        item_group_id: handle,
        sku: sku || null,
        title: str(p.title),
        variant_title: options.length ? options.map((o) => o.value).join(' / ') : null,
        description,
        brand: str(p.vendor) || null,
        category: str(p['product category']) || str(p.type) || null,
        product_type: str(p.type) || null,
        keywords: tags,
        price: str(x['variant price']),
        compare_at_price: str(x['variant compare at price']) || null,
        currency: opts.defaultCurrency,
        inventory: qty || null,
        // A negative or zero stock that the shop keeps selling ("continue") is a backorder.
        availability: qty && Number(qty) <= 0 && policy === 'continue' ? 'backorder' : null,
        gtin: str(x['variant barcode']) || null,
        image_link: images[0] ?? null,
        additional_image_link: images.slice(1),
        variant_image: str(x['variant image']) || null,
        shipping_weight: grams ? `${grams} g` : null,
        link: opts.storeUrl ? `${opts.storeUrl.replace(/\/+$/, '')}/products/${encodeURIComponent(handle)}` : null,
        options,
      },
    };
  }
}

/** One ACP Product line (id, title, description{plain|html|markdown}, url, media, variants[]) as one record per variant. */
function* acpProductRecords(line: number, p: Record<string, unknown>): Generator<RawRecord> {
  const variants = p.variants as unknown[];
  if (!variants.length) {
    yield { line, error: 'variants is empty: an ACP product needs at least one variant' };
    return;
  }
  const productImages = images(p.media);
  for (const raw of variants) {
    if (!raw || typeof raw !== 'object') {
      yield { line, error: 'a variant is not an object' };
      continue;
    }
    const v = raw as Record<string, unknown>;
    const barcodes = Array.isArray(v.barcodes) ? (v.barcodes as Array<{ type?: string; value?: string }>) : [];
    const barcode = (...types: string[]) => barcodes.find((b) => types.includes(String(b.type ?? '').toUpperCase()))?.value ?? null;
    const availability = v.availability as { available?: boolean; status?: string } | undefined;
    const categories = Array.isArray(v.categories) ? (v.categories as Array<{ value?: string; taxonomy?: string }>) : [];
    const seller = v.seller as { name?: string } | undefined;
    const gallery = [...images(v.media), ...productImages];
    yield {
      line,
      values: {
        id: v.id,
        item_group_id: p.id,
        title: p.title ?? v.title,
        variant_title: v.title ?? null,
        description: description(v.description) ?? description(p.description) ?? '',
        link: v.url ?? p.url ?? null,
        image_link: gallery[0] ?? null,
        additional_image_link: gallery.slice(1),
        price: v.price,
        list_price: v.list_price ?? null,
        availability:
          availability?.status ??
          (availability?.available === false ? 'out_of_stock' : availability?.available === true ? 'in_stock' : null),
        category: categories.find((c) => c.taxonomy !== 'google_product_category')?.value ?? null,
        google_product_category: categories.find((c) => c.taxonomy === 'google_product_category')?.value ?? null,
        condition: typeof v.condition === 'string' ? v.condition : null,
        gtin: barcode('GTIN', 'UPC', 'EAN', 'ISBN', 'JAN'),
        mpn: barcode('MPN'),
        options: Array.isArray(v.variant_options) ? v.variant_options : [],
        seller_name: seller?.name ?? null,
        brand: p.brand ?? v.brand ?? null,
      },
    };
  }
}

function images(media: unknown): string[] {
  if (!Array.isArray(media)) return [];
  return media
    .filter(
      (m) => m && typeof m === 'object' && (m as { type?: string }).type !== 'video' && typeof (m as { url?: unknown }).url === 'string',
    )
    .map((m) => (m as { url: string }).url);
}

function description(d: unknown): string | null {
  if (typeof d === 'string') return d;
  if (!d || typeof d !== 'object') return null;
  const o = d as { plain?: string; html?: string; markdown?: string };
  return o.plain ?? (o.html ? htmlToText(o.html) : null) ?? o.markdown ?? null;
}
