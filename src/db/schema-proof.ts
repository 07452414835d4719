import type { Selectable } from 'kysely';
import type { Json, Timestamp } from './schema';

export type EvidenceSource = 'reddit' | 'forum';
export type Stance = 'positive' | 'negative' | 'neutral';

export interface EvidenceClaim {
  /** Lower-case slug, e.g. `battery_life`: claims agree or contradict per attribute. */
  attribute: string;
  stance: Stance;
  text: string;
}

/** One imported community post or comment (docs/PROOF.md). `search_tsv` is generated and not listed. */
export interface CommunityEvidenceTable {
  evidence_id: string;
  source: EvidenceSource;
  community: string;
  thread_url: string;
  post_id: string;
  author_hash: string | null;
  title: string;
  excerpt: string;
  /** The catalog product the importer linked product_name to, if any. */
  product_id: number | null;
  product_name: string;
  claims: Json<EvidenceClaim[]>;
  upvotes: number;
  comment_count: number;
  posted_at: Timestamp;
  imported_at: Timestamp;
  import_batch: string;
}

/** Table types of the proof feed (merged into Database in schema.ts). */
export interface ProofTables {
  community_evidence: CommunityEvidenceTable;
}

export type CommunityEvidenceRow = Selectable<CommunityEvidenceTable>;
