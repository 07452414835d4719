import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from './embedded-postgres';
import { freePort } from '../net';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

async function reachable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

/**
 * A fresh, uniquely named database for one test or benchmark run, dropped afterwards. It lives on
 * the Postgres at `adminUrl` (default 127.0.0.1:5432, trust auth) or, when that does not answer, on
 * an embedded server started under `tmpDir`.
 */
export async function createScratchDatabase(opts: { adminUrl?: string; tmpDir: string; prefix: string }): Promise<ScratchDatabase> {
  let adminUrl = opts.adminUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!(await reachable(adminUrl))) {
    const embedded = await startEmbeddedPostgres({
      dir: path.join(opts.tmpDir, 'pg'),
      port: await freePort(),
      database: 'postgres',
      persistent: false,
    });
    stopEmbedded = embedded.stop;
    adminUrl = embedded.url;
  }
  const name = `${opts.prefix}_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return {
    url: Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      await a.query(`drop database if exists ${name} with (force)`);
      await a.end();
      await stopEmbedded?.();
    },
  };
}
