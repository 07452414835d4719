import pg from 'pg';
import { asyncLocalStorage as activityContext } from '@temporalio/activity';

/** A statement sent through `pg`, with the activity that sent it (`api` outside any activity). */
export interface SentStatement {
  where: string;
  text: string;
}

/**
 * Records the statements every `pg` client of this process sends while `counting` is on: the cost
 * tests' count of round trips (the API and the worker share the process and the pool). `restore()`
 * puts `pg` back.
 */
export function recordStatements() {
  const original = pg.Client.prototype.query;
  const recorder = { counting: false, seen: [] as SentStatement[], restore: () => void (pg.Client.prototype.query = original) };
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    if (recorder.counting) {
      const ctx = activityContext.getStore() as { info?: { activityType?: string } } | undefined;
      const q = args[0] as string | { text?: string };
      recorder.seen.push({ where: ctx?.info?.activityType ?? 'api', text: typeof q === 'string' ? q : (q?.text ?? '?') });
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
  return recorder;
}
