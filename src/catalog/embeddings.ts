import { endianness } from 'node:os';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { ProductRow } from '../db/schema-catalog';
import { readCatalogVersion } from './version';

/**
 * Products' sentence embeddings, kept in Postgres (migration 0034) as the catalog changes
 * (docs/RECOMMEND.md, "The semantic tier"). A walk over the catalog by product id finds the products
 * with no embedding of the current model, or one made from other words, and embeds them; it is
 * resumable from any product id (the embedding flow carries the cursor), and a walk that finds
 * nothing to do writes nothing.
 */

/** What embeds text: the in-process sentence encoder (src/embedding/encoder.ts), or anything with its shape. */
export interface TextEmbedder {
  readonly modelId: string;
  readonly dims: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** The product columns its embedded text is made of. */
export type EmbeddedFields = Pick<ProductRow, 'title' | 'brand' | 'category_l1' | 'category_l2' | 'description'>;

/** Words of the description kept: the opening says what the product is; the rest mostly how it is sold. */
const DESCRIPTION_WORDS = 12;

/**
 * The words a product is embedded from: its title, brand, category and the opening of its
 * description. Titles alone miss what a product is for ("Harvest Table" is a pasta sauce); whole
 * descriptions cost twice the encoder time for little (docs/RECOMMEND.md has the figures).
 */
export function embeddingText(p: EmbeddedFields): string {
  const category = [p.category_l1, p.category_l2].filter(Boolean).join(' > ');
  const description = p.description
    .replace(/<[^>]*>/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, DESCRIPTION_WORDS)
    .join(' ');
  return [p.title, p.brand ? `by ${p.brand}` : '', category, description].filter(Boolean).join('. ');
}

export const textHash = (text: string) => createHash('sha256').update(text).digest().subarray(0, 16);

/** Vectors are stored as float32 little-endian: on such hosts (x64, arm64) a copy of the bytes, no conversion. */
const HOST_IS_LE = endianness() === 'LE';

export function vectorToBytes(v: Float32Array): Buffer {
  if (HOST_IS_LE) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  const b = Buffer.alloc(v.length * 4);
  v.forEach((x, i) => b.writeFloatLE(x, i * 4));
  return b;
}

/**
 * A stored vector back as floats, copied (a pg Buffer may share a pool and be unaligned): one memcpy
 * on a little-endian host, where reading float by float made loading 1,000,000 vectors take ~30 s.
 */
export function bytesToVector(b: Buffer): Float32Array {
  const out = new Float32Array(b.byteLength >> 2);
  if (HOST_IS_LE) new Uint8Array(out.buffer).set(b.subarray(0, out.length * 4));
  else for (let i = 0; i < out.length; i++) out[i] = b.readFloatLE(i * 4);
  return out;
}

export interface EmbedPageResult {
  /** The last product id looked at, or null when the walk reached the end of the catalog. */
  cursor: number | null;
  scanned: number;
  embedded: number;
}

/** Products embedded and stored at a time within a page: a page stopped midway keeps what it did. */
const STORE_EVERY = 32;

/**
 * One page of the walk: the next `pageSize` products after `after` (by id), embedding those whose
 * stored embedding is missing, of another model, or of other words, and storing them 32 at a time.
 * `signal` stops it between two of those (a worker draining does not wait for a whole page; the
 * page runs again elsewhere). Safe to repeat: a retried page finds what it stored embedded.
 */
export async function embedCatalogPage(
  db: Db,
  embedder: TextEmbedder,
  opts: { after: number; pageSize: number; signal?: AbortSignal },
): Promise<EmbedPageResult> {
  const rows = await db
    .selectFrom('products as p')
    .leftJoin('product_embeddings as e', 'e.product_id', 'p.product_id')
    .select(['p.product_id', 'p.title', 'p.brand', 'p.category_l1', 'p.category_l2', 'p.description', 'e.model_id', 'e.text_hash'])
    .where('p.product_id', '>', opts.after)
    .orderBy('p.product_id')
    .limit(opts.pageSize)
    .execute();
  if (!rows.length) return { cursor: null, scanned: 0, embedded: 0 };
  const stale = rows
    .map((r) => {
      const text = embeddingText(r);
      return { r, text, hash: textHash(text) };
    })
    .filter((x) => x.r.model_id !== embedder.modelId || !x.r.text_hash || !x.hash.equals(x.r.text_hash));
  for (let at = 0; at < stale.length; at += STORE_EVERY) {
    opts.signal?.throwIfAborted();
    const part = stale.slice(at, at + STORE_EVERY);
    const vectors = await embedder.embed(part.map((x) => x.text));
    await storeEmbeddings(
      db,
      embedder.modelId,
      part.map((x, i) => ({ productId: x.r.product_id, hash: x.hash, vec: vectors[i]! })),
    );
  }
  return { cursor: rows.at(-1)!.product_id, scanned: rows.length, embedded: stale.length };
}

async function storeEmbeddings(db: Db, modelId: string, rows: Array<{ productId: number; hash: Buffer; vec: Float32Array }>) {
  // One statement per page; an update takes a new seq, so the API processes' indexes pick it up.
  await sql`
    insert into product_embeddings (product_id, model_id, text_hash, vec)
    select * from unnest(${rows.map((r) => r.productId)}::bigint[], ${rows.map(() => modelId)}::text[],
                         ${rows.map((r) => r.hash)}::bytea[], ${rows.map((r) => vectorToBytes(r.vec))}::bytea[])
    on conflict (product_id) do update
      set model_id = excluded.model_id, text_hash = excluded.text_hash, vec = excluded.vec,
          seq = nextval('product_embeddings_seq'), embedded_at = now()`.execute(db);
}

/** Embeds the whole catalog in this process (the seed, tests); the durable path is the embedding flow. */
export async function embedWholeCatalog(
  db: Db,
  embedder: TextEmbedder,
  opts: { pageSize?: number; onPage?: (r: EmbedPageResult) => void } = {},
): Promise<{ scanned: number; embedded: number }> {
  let after = 0;
  let scanned = 0;
  let embedded = 0;
  for (;;) {
    const page = await embedCatalogPage(db, embedder, { after, pageSize: opts.pageSize ?? 256 });
    if (page.cursor === null) return { scanned, embedded };
    scanned += page.scanned;
    embedded += page.embedded;
    opts.onPage?.(page);
    after = page.cursor;
  }
}

/** How much of the catalog has an embedding of `modelId`: the progress an operator reads. */
export async function embeddingCoverage(db: Db, modelId: string): Promise<{ products: number; embedded: number }> {
  const { rows } = await sql<{ products: string; embedded: string }>`
    select (select count(*) from products) as products,
           (select count(*) from product_embeddings where model_id = ${modelId}) as embedded`.execute(db);
  return { products: Number(rows[0]!.products), embedded: Number(rows[0]!.embedded) };
}

/**
 * Whether the embedding flow has work: the catalog changed since its last finished walk for this
 * model (a seed, an import, a refresh bumps the catalog version). Returns the version to walk to.
 */
export async function catalogEmbeddingDue(db: Db, modelId: string): Promise<{ catalogVersion: string; total: number } | null> {
  const catalogVersion = await readCatalogVersion(db);
  const state = await db.selectFrom('catalog_embedding_state').select('catalog_version').where('model_id', '=', modelId).executeTakeFirst();
  if (state?.catalog_version === catalogVersion) return null;
  const { rows } = await sql<{ n: string }>`select count(*) as n from products`.execute(db);
  return { catalogVersion, total: Number(rows[0]!.n) };
}

/** A walk reached the end: every product of `catalogVersion` has its vector. */
export async function recordCatalogEmbedded(db: Db, modelId: string, catalogVersion: string): Promise<void> {
  await db
    .insertInto('catalog_embedding_state')
    .values({ model_id: modelId, catalog_version: catalogVersion })
    .onConflict((oc) => oc.column('model_id').doUpdateSet({ catalog_version: catalogVersion, finished_at: new Date() }))
    .execute();
}
