import type { Migration } from 'kysely';
import * as m0001 from './0001_console';
import * as m0002 from './0002_registries';

/** Forward-only migrations, applied in key order. Add new ones at the end; never edit a landed one. */
export const migrations: Record<string, Migration> = {
  '0001_console': m0001,
  '0002_registries': m0002,
};
