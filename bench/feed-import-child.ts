/** One import as its own process (bench/feed-import.ts), so its peak RSS is the importer's alone. */
import { importFeed } from '../src/catalog/feed-import';
import { createDb } from '../src/db/connect';

const db = createDb(process.env.DATABASE_URL!);
const started = Date.now();
let next = 200_000;
const r = await importFeed(db, process.argv[2]!, {
  merchantId: process.argv[3]!,
  trigger: 'cli',
  onProgress: ({ rows }) => {
    if (rows < next) return;
    next += 200_000;
    process.stderr.write(
      `  ${rows} rows, ${Math.round(rows / ((Date.now() - started) / 1000))} rows/s, rss ${Math.round(process.memoryUsage.rss() / 2 ** 20)} MB\n`,
    );
  },
});
await db.destroy();
console.log(
  JSON.stringify({
    rows_read: r.rows_read,
    imported: r.imported,
    rejected: r.rejected,
    timings_ms: r.timings_ms,
    maxRssKb: process.resourceUsage().maxRSS,
    // The importer's own CPU (parse, mapping, COPY encoding): the rest of the wall time is Postgres's or waiting.
    cpuMs: Math.round((process.cpuUsage().user + process.cpuUsage().system) / 1000),
  }),
);
