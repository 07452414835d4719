import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as workflows from '../../workflows/index';
import { AUTO_UPGRADE_WORKFLOWS, WORKFLOW_PATCHES, WORKFLOW_RELEASE } from '../../src/temporal/workflow-release';
import { ROOT, ts } from './source-tree';

/**
 * The versioning policy (docs/OPERATIONS.md, "Changing a workflow"), held against the code so that
 * layers of patches cannot grow back silently: every workflow type states its versioning behaviour,
 * only auto-upgrade types carry patches, and only the ones src/temporal/workflow-release.ts lists for
 * this release (`patched`) or the previous one (`deprecatePatch`).
 */

type Behaviour = 'PINNED' | 'AUTO_UPGRADE' | undefined;
/** What the workflow states (workflows/versioning.ts statesVersioning), with the options it registered. */
const behaviourOf = (fn: unknown): Behaviour => {
  const f = fn as { statedVersioningBehavior?: Behaviour; workflowDefinitionOptions?: unknown };
  return typeof f.workflowDefinitionOptions === 'function' ? f.statedVersioningBehavior : undefined;
};

/** The patch calls of a workflow file, with the patch id resolved from a literal or a constant of the file. */
export function patchCalls(source: string): Array<{ call: 'patched' | 'deprecatePatch'; id: string }> {
  const constants = new Map([...source.matchAll(/const\s+(\w+)\s*=\s*'([^']+)'/g)].map((m) => [m[1]!, m[2]!]));
  return [...source.matchAll(/\b(patched|deprecatePatch)\(\s*([^)]*?)\s*\)/g)].map((m) => {
    const arg = m[2]!;
    const literal = /^'([^']+)'$/.exec(arg)?.[1];
    return { call: m[1] as 'patched' | 'deprecatePatch', id: literal ?? constants.get(arg) ?? `<unresolved ${arg}>` };
  });
}

const workflowFiles = ts('workflows').filter((f) => !f.endsWith('.shared.ts'));
const calls = workflowFiles.flatMap((file) => patchCalls(readFileSync(path.join(ROOT, file), 'utf8')).map((c) => ({ ...c, file })));

describe('workflow versioning policy', () => {
  it('every workflow type states its versioning behaviour; the auto-upgrade ones are exactly those the policy lists', () => {
    const behaviours = Object.fromEntries(Object.entries(workflows).map(([name, fn]) => [name, behaviourOf(fn)]));
    for (const [name, b] of Object.entries(behaviours)) expect(['PINNED', 'AUTO_UPGRADE'], `${name}: ${b}`).toContain(b);
    const autoUpgrade = Object.keys(behaviours).filter((name) => behaviours[name] === 'AUTO_UPGRADE');
    expect(autoUpgrade.sort()).toEqual([...AUTO_UPGRADE_WORKFLOWS].sort());
  });

  it('patches only in auto-upgrade workflows, and only those of this release and the last (deprecated)', () => {
    for (const p of WORKFLOW_PATCHES) {
      expect(AUTO_UPGRADE_WORKFLOWS, `${p.patch}: a pinned workflow changes without patches`).toContain(p.workflow);
      // Added this release: `patched`; the release after: `deprecatePatch`; then it is removed.
      expect(p.deprecated ? p.since === WORKFLOW_RELEASE - 1 : p.since === WORKFLOW_RELEASE, `${p.patch} since release ${p.since}`).toBe(
        true,
      );
      const inCode = calls.filter((c) => c.id === p.patch);
      expect(inCode.length, `${p.patch} is listed but not in the code`).toBeGreaterThan(0);
      for (const c of inCode) expect(c.call, `${c.file}: ${p.patch}`).toBe(p.deprecated ? 'deprecatePatch' : 'patched');
    }
    const listed = new Set(WORKFLOW_PATCHES.map((p) => p.patch));
    const unlisted = calls.filter((c) => !listed.has(c.id)).map((c) => `${c.file}: ${c.call}(${c.id})`);
    expect(unlisted, 'patch calls the policy does not list (src/temporal/workflow-release.ts)').toEqual([]);
  });

  it('the patch finder sees literals and constants (it must not pass by not looking)', () => {
    const src = `const P = 'a-change';\nif (wf.patched(P)) x();\nwf.deprecatePatch('old-change');\nwf.patched( OTHER )`;
    expect(patchCalls(src)).toEqual([
      { call: 'patched', id: 'a-change' },
      { call: 'deprecatePatch', id: 'old-change' },
      { call: 'patched', id: '<unresolved OTHER>' },
    ]);
  });
});
