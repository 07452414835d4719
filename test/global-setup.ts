import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { createDb } from '../src/db/connect';
import { migrateToLatest } from '../src/db/migrate';
import { seedCatalog } from '../src/catalog/seed';
import { embedTestCatalog } from './helpers/embeddings';
import { startDevServer } from '../src/temporal/dev-server';
import { createScratchDatabase } from '../src/dev/scratch-database';
import { freePort } from '../src/net';
import { writeWorkflowBundles } from '../worker/bundle';

/**
 * One real Temporal dev server and one fresh Postgres database per test run, shared by all files
 * (one server per run: docs/CONTRACT.md#temporal). The database is dropped afterwards; nothing is reused.
 * Postgres: TEST_DATABASE_ADMIN_URL, else 127.0.0.1:5432 (trust auth), else an embedded server.
 * The workflows are bundled once per run too: every worker of the run, in a test file or a process
 * it spawns, loads that file or its traced twin (WORKFLOW_BUNDLE_PATH) instead of running the bundler again.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    workflowBundlePath: string;
  }
}

export default async function setup(project: TestProject) {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'cig-test-'));
  const workflowBundlePath = path.join(tmp, 'workflow-bundle.js');
  // CPU-bound while the rest is mostly waiting on Postgres and the Temporal server: started first.
  const bundled = writeWorkflowBundles(workflowBundlePath);
  bundled.catch(() => undefined); // awaited below
  const database = await createScratchDatabase({ adminUrl: process.env.TEST_DATABASE_ADMIN_URL, tmpDir: tmp, prefix: 'cig_test' });
  const db = createDb(database.url);
  await migrateToLatest(db);
  // The full seeded catalog, as `npm start` has it: tests that need products read it, none write it.
  await seedCatalog(db);
  // The semantic tier's vectors of the seeded catalog (the embedding flow's work, done here once per run).
  await embedTestCatalog(db);
  await db.destroy();

  const temporal = await startDevServer({ port: await freePort(), dbFile: path.join(tmp, 'temporal.db'), install: true });

  await bundled;

  project.provide('databaseUrl', database.url);
  project.provide('temporalAddress', temporal.address);
  project.provide('workflowBundlePath', workflowBundlePath);

  return async () => {
    await temporal.stop();
    await database.drop();
    await rm(tmp, { recursive: true, force: true });
  };
}
