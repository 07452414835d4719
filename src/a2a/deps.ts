import type { SemanticTier } from '../recommend/semantic';
import type { Config } from '../config';
import type { Db } from '../db/connect';
import type { SigningKeys } from '../crypto/signing-keys';
import type { CardFactsCache } from '../catalog/cards';
import type { FrozenTopCache } from '../matching/session-render';
import type { CatalogSnapshotCache } from '../recommend/catalog-snapshot';
import type { RecommendationRecorder } from '../recommend/record';
import type { ApiKeyPrincipal } from '../console/api-keys';
import type { Logger } from '../logger';
import type { TemporalHandle } from '../temporal/client';

/*
 * What the A2A endpoint is given, apart from dispatch.ts: the dispatcher runs the skills of skills.ts,
 * and the skills name these too.
 */

/** What the endpoint needs from the API process (AppDeps satisfies it). */
export interface A2aDeps {
  config: Config;
  db: Db;
  temporal: TemporalHandle | null;
  signingKeys: SigningKeys;
  cardFacts?: CardFactsCache;
  frozenTops: FrozenTopCache;
  catalogSnapshots: CatalogSnapshotCache;
  recommendations: RecommendationRecorder;
  /** The semantic tier of recommendations (SEMANTIC_SEARCH); absent: full text alone. */
  semantic?: SemanticTier;
  logger: Logger;
}

/** Who calls: the API key's developer and the request. */
export interface A2aCaller {
  developerId?: string;
  keyId?: string;
  /** The API key (its scopes gate the skills as they gate the REST routes). */
  principal?: ApiKeyPrincipal;
  requestId?: string;
}
