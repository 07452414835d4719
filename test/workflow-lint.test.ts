import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The workflow determinism rules of eslint.config.js, checked against code a workflow might contain:
 * a broken pattern there would otherwise pass every workflow file silently. (Pure, but loading ESLint
 * and typescript-eslint takes seconds, so it stays out of the `unit` project's budget.)
 */
const eslint = new ESLint({ cwd: fileURLToPath(new URL('..', import.meta.url)) });

async function restrictedImports(code: string, filePath = 'workflows/probe.ts'): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages
    .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports' || m.ruleId === 'no-restricted-globals')
    .map((m) => m.message);
}

describe('workflow lint rules', () => {
  it.each([
    ["import { readFile } from 'node:fs/promises';", /Node built-ins/],
    ["import { randomUUID } from 'crypto';", /Node built-ins/],
    ["import pg from 'pg';", /database access belongs in an activity/],
    ["import { sql } from 'kysely';", /database access belongs in an activity/],
    ["import { Client } from '@temporalio/client';", /startChild\/executeChild/],
    ["import { Worker } from '@temporalio/worker';", /worker is not available/],
    ["import { Context } from '@temporalio/activity';", /proxyActivities/],
    ["import { createActivities } from '../activities/index';", /import their types only/],
    ["import { createDb } from '../src/db/connect';", /src\/ modules may do I\/O/],
    ['export const env = process.env.X;', /configuration reaches a workflow through its input/],
  ])('refuses %s', async (code, why) => {
    const messages = await restrictedImports(`${code}\nexport {};\n`);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/replayed from history/);
    expect(messages[0]).toMatch(why);
  });

  it('allows type-only imports, the workflow API and the pure shared helpers', async () => {
    const code = [
      "import * as wf from '@temporalio/workflow';",
      "import type { CheckoutActivities } from '../activities/checkout';",
      "import type { Kysely } from 'kysely';",
      "import { searchAttributes } from '../src/temporal/names';",
      "import { attemptDelayMs } from '../src/dispatch/retry-schedule';",
      "import { windowEnding } from '../src/supply/window';",
      'export const used = [wf, searchAttributes, attemptDelayMs, windowEnding];',
      'export type T = CheckoutActivities | Kysely<never>;',
    ].join('\n');
    expect(await restrictedImports(code)).toEqual([]);
  });

  it('applies to workflows/ only: activities may import what they need', async () => {
    expect(await restrictedImports("import pg from 'pg';\nexport const p = pg;\n", 'activities/probe.ts')).toEqual([]);
  });
});
