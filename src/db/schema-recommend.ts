import type { Generated } from 'kysely';
import type { Json, Timestamp } from './columns';
import type { ProductCardDocumentT } from '../schemas/catalog';

export type CardSource = 'match' | 'product_card' | 'showcase' | 'recommend' | 'checkout';

/** One issued Product Card Document, kept so its rec_id can be looked up and attributed. */
export interface RecCardsTable {
  rec_id: string;
  product_id: number;
  source: CardSource;
  channel: string | null;
  match_session_id: string | null;
  document: Json<ProductCardDocumentT>;
  created_at: Timestamp;
}

export interface RecClicksTable {
  click_id: Generated<string>;
  rec_id: string;
  channel: string | null;
  /** The card's product, copied at click time so the attribution report needs no join (migration 0015). */
  product_id: number | null;
  user_agent_hash: string | null;
  clicked_at: Timestamp;
}

/** Table types of the recommendation tables (merged into Database in schema.ts). */
export interface RecommendTables {
  rec_cards: RecCardsTable;
  rec_clicks: RecClicksTable;
}
