import type { Selectable } from 'kysely';
import type { Json, Timestamp } from './columns';
import type { z } from 'zod';
import type { EvidenceClaim as EvidenceClaimSchema, STANCES } from '../schemas/proof';

export type EvidenceSource = 'reddit' | 'forum';
export type Stance = (typeof STANCES)[number];

/** One claim of a post; `attribute` is a lower-case slug (e.g. `battery_life`): claims agree or contradict per attribute. */
export type EvidenceClaim = z.infer<typeof EvidenceClaimSchema>;

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
