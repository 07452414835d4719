import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, ts } from './source-tree';

/**
 * A statement sent on the pool (`db`, `deps.db`) from inside a transaction takes a second connection
 * while the transaction holds one: with as many such transactions in flight as the pool has
 * connections, each waits for a connection none will give back, and all fail after the pool's wait
 * (503). Inside a transaction every statement goes on its connection (`trx`).
 */

/** The body of each `.transaction().execute(async (trx) => { … })` in a source text. */
function transactionBodies(source: string): Array<{ line: number; body: string }> {
  const bodies: Array<{ line: number; body: string }> = [];
  for (const m of source.matchAll(/\.transaction\(\)\s*\.execute\(\s*async\s*\(\w+\)\s*=>\s*\{/g)) {
    let depth = 1;
    let i = m.index + m[0].length;
    for (; depth > 0 && i < source.length; i++) depth += source[i] === '{' ? 1 : source[i] === '}' ? -1 : 0;
    bodies.push({ line: source.slice(0, m.index).split('\n').length, body: source.slice(m.index + m[0].length, i) });
  }
  return bodies;
}

describe('statements inside a transaction', () => {
  it('the scan finds a pool statement inside a transaction', () => {
    const found = transactionBodies('db.transaction().execute(async (trx) => { await trx.x(); await getIntent(deps.db, id); });');
    expect(found).toHaveLength(1);
    expect(found[0]!.body).toMatch(/\bdeps\.db\b/);
  });

  it('go on the transaction’s connection, never on the pool', () => {
    const offenders: string[] = [];
    for (const file of ['src', 'api', 'activities'].flatMap(ts)) {
      for (const { line, body } of transactionBodies(readFileSync(path.join(ROOT, file), 'utf8'))) {
        // `(db: Db)` in a parameter list names a type, not the pool.
        const uses = body.replace(/\(\s*db\s*:/g, '(').match(/\b(?:deps\.db|this\.db|db)\b(?=[.,)])/g);
        if (uses) offenders.push(`${file}:${line}: ${uses.join(', ')}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
