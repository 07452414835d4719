import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createDb } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { startDevServer } from '../src/temporal/dev-server';
import { startEmbeddedPostgres } from '../src/dev/embedded-postgres';
import { freePort } from '../src/net';

/**
 * One real Temporal dev server and one fresh Postgres database per test run, shared by all files
 * (TEMPORAL-NOTES: one server per run). The database is dropped afterwards; nothing is reused.
 * Postgres: TEST_DATABASE_ADMIN_URL, else 127.0.0.1:5432 (trust auth), else an embedded server.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    adminUrl: string;
  }
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

export default async function setup(project: TestProject) {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'cig-test-'));
  const cleanups: Array<() => Promise<unknown>> = [];

  let adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  if (!(await reachable(adminUrl))) {
    const embedded = await startEmbeddedPostgres({ dir: path.join(tmp, 'pg'), port: await freePort(), database: 'postgres', persistent: false });
    cleanups.push(() => embedded.stop());
    adminUrl = embedded.url;
  }
  const dbName = `cig_test_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  await admin.end();
  const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${dbName}` }).toString();
  const db = createDb(databaseUrl);
  await migrateToLatest(db);
  await db.destroy();

  const temporal = await startDevServer({ port: await freePort(), dbFile: path.join(tmp, 'temporal.db'), install: true });

  project.provide('databaseUrl', databaseUrl);
  project.provide('temporalAddress', temporal.address);
  project.provide('adminUrl', adminUrl);

  return async () => {
    await temporal.stop();
    const a = new pg.Client({ connectionString: adminUrl });
    await a.connect();
    await a.query(`drop database if exists ${dbName} with (force)`);
    await a.end();
    for (const c of cleanups.reverse()) await c();
    await rm(tmp, { recursive: true, force: true });
  };
}
