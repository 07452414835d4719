import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import pg from 'pg';

/**
 * CPU time split by process, read from /proc (Linux only): utime + stime of a process and of every
 * descendant alive at the reading, plus cutime + cstime (the descendants that have exited and been
 * waited for). Postgres serves every database on the machine from one server, so its share is the
 * backends connected to the benchmark's own database, sampled every second so that a pooled
 * connection closed mid-run still counts up to its last sample.
 */

let ticksPerSecond = 100;
try {
  ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
} catch {
  // No getconf: Linux's usual 100 ticks per second.
}

interface Stat {
  pid: number;
  ppid: number;
  /** Own user + system time, in clock ticks. */
  own: number;
  /** Waited-for children's user + system time, in clock ticks. */
  children: number;
}

function readStat(pid: number): Stat | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: split after its closing one.
    const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    // f[0] is field 3 (state): ppid is field 4, utime..cstime fields 14..17.
    return { pid, ppid: Number(f[1]), own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined; // gone
  }
}

function allStats(): Stat[] {
  const out: Stat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = readStat(Number(name));
    if (s) out.push(s);
  }
  return out;
}

/** Ticks of `root` and its whole tree. */
function treeTicks(root: number, stats: Stat[]): number {
  const byParent = new Map<number, Stat[]>();
  for (const s of stats) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s]);
  const top = stats.find((s) => s.pid === root);
  if (!top) return 0;
  let total = top.children;
  const stack = [top];
  while (stack.length) {
    const s = stack.pop()!;
    total += s.own;
    stack.push(...(byParent.get(s.pid) ?? []));
  }
  return total;
}

export interface CpuSplit {
  seconds: number;
  /** CPU seconds per process name over the window. */
  cpu: Record<string, number>;
}

/**
 * Starts measuring; `stop()` returns CPU seconds per named process over the window. `databaseUrl`
 * adds a "postgres" entry: the backends serving that database.
 */
export function startCpuMeter(processes: Record<string, number | undefined>, databaseUrl?: string) {
  const named = Object.entries(processes).filter((e): e is [string, number] => e[1] !== undefined);
  // This process spawned the stack: its own time only, not its children's (counted by name).
  const ticks = (n: string, pid: number, stats: Stat[]) =>
    pid === process.pid ? (stats.find((s) => s.pid === pid)?.own ?? 0) : treeTicks(pid, stats);
  const before = allStats();
  const start = Object.fromEntries(named.map(([n, pid]) => [n, ticks(n, pid, before)]));
  const startedAt = performance.now();

  // Postgres backends of the database: first and last ticks seen per backend pid.
  const backends = new Map<number, { first: number; last: number }>();
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let initial = true;
  const sampleBackends = async () => {
    if (!client) return;
    const { rows } = await client.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database()');
    for (const { pid } of rows) {
      const s = readStat(pid);
      if (!s) continue;
      const seen = backends.get(pid);
      if (seen) seen.last = s.own;
      else backends.set(pid, { first: initial ? s.own : 0, last: s.own });
    }
    initial = false;
  };
  const ready = (async () => {
    if (!databaseUrl) return;
    client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await sampleBackends();
    timer = setInterval(() => void sampleBackends().catch(() => {}), 1000);
  })();

  return {
    ready,
    async stop(): Promise<CpuSplit> {
      const after = allStats();
      const seconds = (performance.now() - startedAt) / 1000;
      const cpu: Record<string, number> = {};
      for (const [n, pid] of named) cpu[n] = (ticks(n, pid, after) - start[n]!) / ticksPerSecond;
      if (timer) clearInterval(timer);
      if (client) {
        await sampleBackends().catch(() => {});
        await client.end();
        // A backend that was already running at the start counts from then; a new one from zero
        // (its fork and connection set-up are part of the load).
        let used = 0;
        for (const b of backends.values()) used += b.last - b.first;
        cpu.postgres = used / ticksPerSecond;
      }
      return { seconds, cpu };
    },
  };
}

/** One markdown table: CPU seconds and share of the machine's cores per process. */
export function cpuTable(split: CpuSplit, cores: number): string[] {
  const total = Object.values(split.cpu).reduce((a, b) => a + b, 0);
  const lines = [
    `CPU over ${split.seconds.toFixed(1)} s on ${cores} cores ` +
      `(${((total / split.seconds / cores) * 100).toFixed(0)} % of the machine by these processes)`,
    '',
    '| process | CPU s | % of one core | share of these processes |',
    '|---|---|---|---|',
  ];
  for (const [n, s] of Object.entries(split.cpu)) {
    lines.push(
      `| ${n} | ${s.toFixed(1)} | ${((s / split.seconds) * 100).toFixed(0)} % | ${total ? ((s / total) * 100).toFixed(0) : 0} % |`,
    );
  }
  return lines;
}
