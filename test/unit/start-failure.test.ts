import { describe, expect, it } from 'vitest';
import { errorText, LogTail, LOG_TAIL_LINES, ServerStartError } from '../../src/dev/start-failure';
import { postgresReason } from '../../src/dev/embedded-postgres';
import { devServerReason } from '../../src/temporal/dev-server';

/** How a server that did not start is reported: its last lines, and its own reason picked out of them. */
describe('start failures', () => {
  it('keeps the last lines of a child output as they arrive in chunks, bounded in count and width', () => {
    const tail = new LogTail(5);
    tail.push('one\ntw');
    tail.push('o\n\nthree\n');
    expect(tail.last()).toEqual(['one', 'two', 'three']);
    tail.push('partial');
    expect(tail.last(2)).toEqual(['three', 'partial']);
    for (let i = 0; i < 10; i++) tail.push(`line ${i}\n`);
    expect(tail.last(100)).toEqual(['line 5', 'line 6', 'line 7', 'line 8', 'line 9']);
    tail.push(`${'x'.repeat(2000)}\n`);
    expect(tail.last(1)[0]!.length).toBeLessThan(600);
    tail.clear();
    expect(tail.last()).toEqual([]);
    const many = new LogTail();
    for (let i = 0; i < 100; i++) many.push(`l${i}\n`);
    expect(many.last()).toHaveLength(LOG_TAIL_LINES);
  });

  it("takes Postgres's own reason from its last FATAL line, else initdb's error", () => {
    const log = [
      '2026-11-27 19:57:00.123 UTC [123] LOG:  starting PostgreSQL 18.4',
      '2026-11-27 19:57:00.124 UTC [123] FATAL:  could not create lock file "/tmp/.s.PGSQL.54329.lock": Permission denied',
      '2026-11-27 19:57:00.125 UTC [123] LOG:  database system is shut down',
    ];
    expect(postgresReason(log)).toBe('could not create lock file "/tmp/.s.PGSQL.54329.lock": Permission denied');
    expect(postgresReason(['initdb: error: directory "/x/pg" exists but is not empty'])).toBe('directory "/x/pg" exists but is not empty');
    expect(postgresReason(['LOG:  all fine'])).toBeUndefined();
  });

  it("takes the dev server's own reason from its Error line", () => {
    expect(devServerReason(["Error: can't set frontend port 7233: listen tcp 127.0.0.1:7233: bind: address already in use"])).toBe(
      "can't set frontend port 7233: listen tcp 127.0.0.1:7233: bind: address already in use",
    );
    expect(devServerReason(['time=x level=ERROR msg="unable to start" error=boom'])).toBe('unable to start');
    expect(devServerReason(['time=x level=WARN msg="slow"'])).toBeUndefined();
  });

  it('says which server, why, and quotes its lines; a rejection with nothing in it still reads as text', () => {
    const err = new ServerStartError('embedded Postgres (port 1, data /d)', 'it broke', { source: 'Postgres log', lines: ['a', 'b'] });
    expect(err.message).toBe(
      'embedded Postgres (port 1, data /d) did not start: it broke\n  last 2 lines of its Postgres log:\n    | a\n    | b',
    );
    expect(new ServerStartError('x', 'y', { source: 'stderr', lines: [] }).message).toContain('(no output in its stderr)');
    expect(errorText(undefined)).toBe('no reason given');
    expect(errorText(new Error('boom'))).toBe('boom');
  });
});
