import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, ts } from './source-tree';

/**
 * The flow shape (docs/ARCHITECTURE.md) as checks on the source tree: every flow has its `.shared.ts`,
 * the API side imports only those (never a workflow file), and every activity file stays a thin wrapper.
 */
/** Workflow files that are not flows: the bundler's entry point, the stage and the versioning helpers. */
const NOT_FLOWS = new Set(['index.ts', 'stage.ts', 'versioning.ts']);

describe('the flow shape', () => {
  it('every workflows/<flow>.ts has its workflows/<flow>.shared.ts and activities/<flow>.ts', () => {
    const workflows = ts('workflows').map((f) => path.basename(f));
    const flows = workflows.filter((f) => !f.endsWith('.shared.ts') && !NOT_FLOWS.has(f));
    expect(flows.length).toBeGreaterThanOrEqual(6);
    for (const f of flows) {
      const flow = f.replace(/\.ts$/, '');
      // ping has nothing to share: a string in, a string out.
      if (flow !== 'ping') expect(workflows, `workflows/${flow}.shared.ts`).toContain(`${flow}.shared.ts`);
      expect(
        ts('activities').map((a) => path.basename(a)),
        `activities/${flow}.ts`,
      ).toContain(`${flow}.ts`);
    }
  });

  it('api/, src/ and worker/ import workflow definitions only from workflows/*.shared.ts', () => {
    const offenders: string[] = [];
    for (const file of [...ts('api'), ...ts('src'), ...ts('worker')]) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/from\s+['"]([^'"]*\/workflows\/[^'"]+)['"]/g)) {
        if (!m[1]!.endsWith('.shared')) offenders.push(`${file}: ${m[1]}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('every file in activities/ is a thin wrapper (at most ~120 lines)', () => {
    const long = ts('activities')
      .map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > 120);
    expect(long).toEqual([]);
  });
});
