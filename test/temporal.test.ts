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
import * as workflows from '../workflows/index';
import { ping } from '../workflows/index';
import { AUTO_UPGRADE_WORKFLOWS, WORKFLOW_RELEASE } from '../src/temporal/workflow-release';
import { releaseHistories } from './helpers/histories';
import { existsSync } from 'node:fs';
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

  it("recorded workflow histories replay against the current code: this release's of every type, the previous release's of auto-upgrade types", async () => {
    // A pinned run finishes on the worker version it started on, so only an auto-upgrade run meets this
    // code with a history an earlier release wrote (docs/OPERATIONS.md, "Changing a workflow").
    const kept = [
      { release: WORKFLOW_RELEASE, types: null },
      { release: WORKFLOW_RELEASE - 1, types: new Set(AUTO_UPGRADE_WORKFLOWS) },
    ];
    const replayed = new Set<string>();
    for (const { release, types } of kept) {
      const dir = releaseHistories(release);
      if (!existsSync(dir)) continue;
      for (const file of (await readdir(dir)).filter((f) => f.endsWith('.json'))) {
        // runReplayHistory accepts the JSON form that `temporal workflow show -o json` writes.
        const history = JSON.parse(await readFile(dir + file, 'utf8'));
        const type = history.events[0].workflowExecutionStartedEventAttributes.workflowType.name as string;
        if (types && !types.has(type)) continue;
        await Worker.runReplayHistory({ workflowBundle: await testWorkflowBundle() }, history, `release-${release}/${file}`);
        if (release === WORKFLOW_RELEASE) replayed.add(type);
      }
    }
    // Every workflow type the worker runs has its current shape recorded.
    expect([...replayed].sort()).toEqual(Object.keys(workflows).sort());
    // Nothing older than the previous release is kept.
    const dirs = (await readdir(HISTORIES)).filter((d) => d.startsWith('release-'));
    expect(
      dirs.every((d) => Number(d.slice('release-'.length)) >= WORKFLOW_RELEASE - 1),
      dirs.join(', '),
    ).toBe(true);
    expect((await readdir(HISTORIES)).filter((f) => f.endsWith('.json'))).toEqual([]);
  });
});
