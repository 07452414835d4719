import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { withCliDatabase } from '../src/db/cli-database';
import { CATALOG_MERCHANT_ID } from '../src/db/migrations/0008_recommend';
import { FeedFileError, importFeed } from '../src/catalog/feed-import';

const USAGE = `usage: npm run import-feed -- [--merchant ID] [--full] [--currency CODE] [--store-url URL] FILE
  FILE         a Shopify product CSV export, a Google Merchant Center TSV or XML (RSS/Atom) feed,
               an ACP product feed (JSON Lines), or the gateway's own CSV/JSONL (docs/CATALOG.md)
  --merchant   the registered merchant whose catalog this is (default ${CATALOG_MERCHANT_ID})
  --full       the file is the merchant's whole catalog: its feed products missing from it become unavailable
  --currency   currency of prices that name none (a Shopify export; default USD)
  --store-url  storefront origin for product links of a Shopify export (https://shop.example)
  --progress   print progress (rows/s, ETA) also when stderr is not a terminal (on a terminal it always shows)
  --quiet      no progress at all`;

/** `npm run import-feed -- FILE`: load a merchant feed; exit 1 when nothing could be imported. */
async function main() {
  let args;
  try {
    args = parseArgs({
      allowPositionals: true,
      options: {
        merchant: { type: 'string' },
        full: { type: 'boolean' },
        currency: { type: 'string' },
        'store-url': { type: 'string' },
        quiet: { type: 'boolean' },
        progress: { type: 'boolean' },
      },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  const file = args.positionals[0];
  if (!file || args.positionals.length > 1) {
    console.error(USAGE);
    process.exit(2);
  }
  const size = await stat(file)
    .then((s) => s.size)
    .catch(() => 0);
  const started = Date.now();
  const tty = process.stderr.isTTY;
  // A bar redrawn in place on a terminal; with --progress, a line a second for logs. The same counts
  // land on the run record (rows_read, bytes_read) while the import runs.
  const showProgress = !args.values.quiet && (tty || args.values.progress === true);
  let lastPrinted = 0;
  const progress = ({ rows, bytes }: { rows: number; bytes: number }, final = false) => {
    const now = Date.now();
    if (!showProgress || (!final && now - lastPrinted < 1000)) return;
    lastPrinted = now;
    const secs = (now - started) / 1000;
    const rate = rows / Math.max(secs, 0.001);
    const share = size ? Math.min(bytes / size, 1) : 0;
    const eta = share > 0 ? Math.max(0, secs / share - secs) : NaN;
    const bar = size ? `[${'#'.repeat(Math.round(share * 30)).padEnd(30, '.')}] ${(share * 100).toFixed(0).padStart(3)}% ` : '';
    const line = `${bar}${rows.toLocaleString('en-US')} rows, ${Math.round(rate).toLocaleString('en-US')} rows/s, ETA ${Number.isFinite(eta) ? `${Math.ceil(eta)}s` : '?'}`;
    process.stderr.write(tty ? `\r${line}` : `${line}\n`);
  };
  await withCliDatabase(async (db) => {
    try {
      const report = await importFeed(db, file, {
        merchantId: args.values.merchant ?? CATALOG_MERCHANT_ID,
        fullSnapshot: args.values.full ?? false,
        defaultCurrency: args.values.currency,
        storeUrl: args.values['store-url'] ?? null,
        trigger: 'cli',
        onProgress: progress,
      });
      progress({ rows: report.rows_read, bytes: size }, true);
      if (tty && showProgress) process.stderr.write('\n');
      for (const s of report.skipped) console.log(`line ${s.line}: skipped: ${s.reason}`);
      if (report.rejected > report.skipped.length) console.log(`... and ${report.rejected - report.skipped.length} more skipped rows`);
      const secs = (Date.now() - started) / 1000;
      console.log(
        `${file} (${report.format}, merchant ${report.merchant_id}): ${report.rows_read} rows read in ${secs.toFixed(1)}s; ` +
          `${report.imported} imported, ${report.updated} updated (${report.changed} changed), ${report.removed} made unavailable, ${report.rejected} skipped; run ${report.run_id}`,
      );
      if (report.imported + report.updated === 0) process.exitCode = 1;
    } catch (err) {
      const why = err instanceof FeedFileError ? err.message : `${(err as Error).message ?? err}`;
      console.error(`${file}: import failed, nothing was imported: ${why}`);
      process.exitCode = 1;
    }
  });
}

main().catch((err) => {
  console.error(`import-feed failed: ${(err as Error).message ?? err}`);
  process.exit(1);
});
