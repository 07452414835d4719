import { readFile, readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { connectTemporal, type TemporalHandle } from '../src/temporal/client';
import { ensureSearchAttributes, listCustomSearchAttributes } from '../src/temporal/search-attributes';
import { SEARCH_ATTRIBUTE_NAMES, workflowIds } from '../src/temporal/names';
import { createDb, type Db } from '../src/db/connect';
import { withTestWorker, testWorkflowBundle } from './helpers/worker';
import { findTemporalCli } from '../src/temporal/cli';
import { ping } from '../workflows/index';
import { testConfig } from './helpers/stack';

const HISTORIES = fileURLToPath(new URL('./histories/', import.meta.url));

let temporal: TemporalHandle;
let db: Db;

beforeAll(async () => {
  temporal = await connectTemporal(inject('temporalAddress'), 'default', 'unused');
  db = createDb(inject('databaseUrl'));
});
afterAll(async () => {
  await temporal.connection.close();
  await db.destroy();
});

describe('Temporal server and worker', () => {
  it('the search attributes of docs/CONTRACT.md#temporal exist on the server as keywords', async () => {
    const attrs = await listCustomSearchAttributes(temporal.connection, 'default');
    for (const name of SEARCH_ATTRIBUTE_NAMES) expect(attrs[name], name).toBe(2 /* KEYWORD */);
    // Registering again is a no-op.
    expect(await ensureSearchAttributes(temporal.connection, 'default')).toEqual([]);
  });

  it('a worker connects, polls its task queue and runs a workflow with an activity', async () => {
    const config = testConfig();
    const result = await withTestWorker(config, db, () =>
      temporal.client.workflow.execute(ping, {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: workflowIds.ping(`t-${Date.now()}`),
        args: ['hello'],
      }),
    );
    expect(result).toEqual({ message: 'hello', answeredBy: `worker@${config.TEMPORAL_TASK_QUEUE}` });
  });

  it('a flow started while no worker polls waits durably and completes once a worker comes up', async () => {
    const config = testConfig();
    const handle = await temporal.client.workflow.start(ping, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: workflowIds.ping(`late-${Date.now()}`),
      args: ['queued'],
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(await withTestWorker(config, db, () => handle.result())).toEqual({
      message: 'queued',
      answeredBy: `worker@${config.TEMPORAL_TASK_QUEUE}`,
    });
  });

  it('a TEMPORAL_CLI that is not an executable is reported as such', async () => {
    const saved = process.env.TEMPORAL_CLI;
    process.env.TEMPORAL_CLI = '/nonexistent/temporal';
    try {
      await expect(findTemporalCli({ install: true })).rejects.toThrow('TEMPORAL_CLI=/nonexistent/temporal is not an executable file');
    } finally {
      if (saved === undefined) delete process.env.TEMPORAL_CLI;
      else process.env.TEMPORAL_CLI = saved;
    }
  });

  it('recorded workflow histories replay deterministically against the current code', async () => {
    const files = (await readdir(HISTORIES)).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      // runReplayHistory accepts the JSON form that `temporal workflow show -o json` writes.
      const history = JSON.parse(await readFile(HISTORIES + file, 'utf8'));
      await Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, file);
    }
  });
});
