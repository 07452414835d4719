import { sql, type Kysely } from 'kysely';

/** Issued Product Card Documents (rec_id is the attribution key: docs/CONTRACT.md#ids) and the clicks on their CTAs. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('rec_cards')
    .addColumn('rec_id', 'text', (c) => c.primaryKey())
    .addColumn('product_id', 'integer', (c) => c.notNull().references('products.product_id'))
    // Where the card was handed out: match, product_card, showcase, recommend.
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('channel', 'text')
    .addColumn('match_session_id', 'text')
    .addColumn('document', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('rec_cards_product_idx').on('rec_cards').columns(['product_id', 'created_at']).execute();

  await db.schema
    .createTable('rec_clicks')
    .addColumn('click_id', 'bigserial', (c) => c.primaryKey())
    .addColumn('rec_id', 'text', (c) => c.notNull().references('rec_cards.rec_id'))
    .addColumn('channel', 'text')
    // SHA-256 of the User-Agent: enough to tell repeat clicks apart, nothing that identifies a person.
    .addColumn('user_agent_hash', 'text')
    .addColumn('clicked_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('rec_clicks_rec_idx').on('rec_clicks').columns(['rec_id', 'clicked_at']).execute();

  // A match session keeps the cards of its top proposals, issued once at creation.
  await db.schema
    .alterTable('match_sessions')
    .addColumn('top_cards', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
}
