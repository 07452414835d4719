import { createHash } from 'node:crypto';
import type { Db } from '../db/connect';
import type { Database } from '../db/schema';
import type { CardSource } from '../db/schema-recommend';
import type { Transaction } from 'kysely';
import { buildProductCards, type CardOptions } from '../catalog/cards';
import { AppError } from '../errors';
import { newId } from '../ids';
import type { ProductCardDocumentT } from '../schemas/catalog';

export const cardNotFound = (recId: string) => new AppError(404, 'not_found', `No card with rec_id '${recId}'.`);

/** A fresh, globally unique rec_id. */
export const newRecId = () => newId('rec');

/** Stable per session and product, so a session's cards keep their rec ids however often it is shown. */
export const matchRecId = (sessionId: string) => (productId: number) =>
  `rec_${createHash('sha256').update(`${sessionId}:${productId}`).digest('base64url').slice(0, 22)}`;

/**
 * Builds Product Card Documents and keeps each one under its rec_id: the id a CTA carries is then
 * something GET /v1/cards/{recId} and the click redirect can find and attribute.
 */
export async function issueCards(
  db: Db | Transaction<Database>,
  productIds: number[],
  opts: Omit<CardOptions, 'recIdFor'> & { recIdFor?: CardOptions['recIdFor']; source: CardSource; matchSessionId?: string },
): Promise<ProductCardDocumentT[]> {
  const cards = await buildProductCards(db, productIds, { ...opts, recIdFor: opts.recIdFor ?? newRecId });
  if (cards.length) {
    await db
      .insertInto('rec_cards')
      .values(issuedCardRows(cards, opts))
      .onConflict((oc) => oc.column('rec_id').doNothing())
      .execute();
  }
  return cards;
}

/** The rec_cards rows that keep built cards under their rec ids (inserted on conflict do nothing). */
export function issuedCardRows(cards: ProductCardDocumentT[], opts: { source: CardSource; matchSessionId?: string }) {
  return cards.map((c) => ({
    rec_id: c.rec_id,
    product_id: Number(c.product.id),
    source: opts.source,
    channel: c.channel ?? null,
    match_session_id: opts.matchSessionId ?? null,
    document: JSON.stringify(c),
  }));
}

/**
 * The cards issued with a session for these products, in the order given (a product without one is
 * skipped). A product listed as another seller's offer on a card already taken is that card's, not a
 * card of its own: a recommendation's session shows one card per product, as its items do.
 */
export async function getSessionCards(db: Db, sessionId: string, productIds: number[]): Promise<ProductCardDocumentT[]> {
  const recIdOf = matchRecId(sessionId);
  const ids = [...new Set(productIds)];
  if (!ids.length) return [];
  const rows = await db.selectFrom('rec_cards').select(['rec_id', 'document']).where('rec_id', 'in', ids.map(recIdOf)).execute();
  const byRecId = new Map(rows.map((r) => [r.rec_id, r.document]));
  const offered = new Set<string>();
  const cards: ProductCardDocumentT[] = [];
  for (const id of ids) {
    const card = byRecId.get(recIdOf(id));
    if (!card || offered.has(card.product.id)) continue;
    cards.push(card);
    for (const o of card.offers ?? []) offered.add(o.product_id);
  }
  return cards;
}

export async function getIssuedCard(db: Db, recId: string): Promise<ProductCardDocumentT> {
  const row = await db.selectFrom('rec_cards').select('document').where('rec_id', '=', recId).executeTakeFirst();
  if (!row) throw cardNotFound(recId);
  return row.document;
}
