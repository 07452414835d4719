import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_console';
import * as m0002 from './0002_registries';
import * as m0003 from './0003_catalog';
import * as m0004 from './0004_matching';
import * as m0005 from './0005_intent_mandates';
import * as m0006 from './0006_dispatch';
import * as m0007 from './0007_rec_cards';
import * as m0008 from './0008_recommend';
import * as m0009 from './0009_community_evidence';
import * as m0010 from './0010_agentic_checkout';
import * as m0011 from './0011_commerce_runtime';
import * as m0012 from './0012_experience_supply';
import * as m0013 from './0013_experience';
import * as m0014 from './0014_merchant_ops';
import * as m0015 from './0015_attribution';
import * as m0016 from './0016_reconciliation';
import * as m0017 from './0017_lz4_documents';
import * as m0018 from './0018_recommendation_write';
import * as m0019 from './0019_catalog_version';
import * as m0020 from './0020_tenancy';
import * as m0021 from './0021_checkout_modes';
import * as m0022 from './0022_exactly_once';
import * as m0023 from './0023_merchant_catalogs';
import * as m0025 from './0025_keyed_registration';
import * as m0026 from './0026_feed_refresh';
import * as m0027 from './0027_rate_limits';
import * as m0031 from './0031_catalog_partitions';
import * as m0032 from './0032_merchant_protocols';
import * as m0033 from './0033_checkout_abandonments';
import * as m0034 from './0034_product_embeddings';
import * as m0035 from './0035_delivery_replay_workflow';

/** Forward-only migrations, applied in key order. Add new ones at the end; never edit a landed one. */
export const migrations: Record<string, Migration> = {
  '0001_console': m0001,
  '0002_registries': m0002,
  '0003_catalog': m0003,
  '0004_matching': m0004,
  '0005_intent_mandates': m0005,
  '0006_dispatch': m0006,
  '0007_rec_cards': m0007,
  '0008_recommend': m0008,
  '0009_community_evidence': m0009,
  '0010_agentic_checkout': m0010,
  '0011_commerce_runtime': m0011,
  '0012_experience_supply': m0012,
  '0013_experience': m0013,
  '0014_merchant_ops': m0014,
  '0015_attribution': m0015,
  '0016_reconciliation': m0016,
  '0017_lz4_documents': m0017,
  '0018_recommendation_write': m0018,
  '0019_catalog_version': m0019,
  '0020_tenancy': m0020,
  '0021_checkout_modes': m0021,
  '0022_exactly_once': m0022,
  '0023_merchant_catalogs': m0023,
  '0025_keyed_registration': m0025,
  '0026_feed_refresh': m0026,
  '0027_rate_limits': m0027,
  '0031_catalog_partitions': m0031,
  '0032_merchant_protocols': m0032,
  '0033_checkout_abandonments': m0033,
  '0034_product_embeddings': m0034,
  '0035_delivery_replay_workflow': m0035,
};
