import type { Db } from '../src/db/connect';
import type { Config } from '../src/config';

/**
 * What every flow's activities are built from (samples-typescript's dependency-injection pattern).
 * Apart from activities/index.ts, which imports every activity file, so an activity file can name it
 * without importing the index back.
 */
export interface ActivityDeps {
  db: Db;
  config: Config;
}
