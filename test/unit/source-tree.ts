import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, for the unit tests that read the source tree. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every `.ts` file below `dir` (relative to ROOT), as paths relative to ROOT. */
export const ts = (dir: string): string[] =>
  readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) return ts(rel);
    return name.endsWith('.ts') ? [rel] : [];
  });
