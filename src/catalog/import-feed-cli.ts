import { withCliDatabase } from '../db/cli-database';
import { FeedFileError, importFeed } from './feed-import';

/** `npm run import-feed -- FILE`: load a merchant feed; exit 1 when nothing could be imported. */
async function main() {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: npm run import-feed -- FILE   (CSV or JSONL; see docs/CATALOG.md)');
    process.exit(2);
  }
  await withCliDatabase(async (db) => {
    try {
      const report = await importFeed(db, file);
      for (const s of report.skipped) console.log(`line ${s.line}: skipped: ${s.reason}`);
      console.log(`${file}: ${report.imported} imported, ${report.updated} updated, ${report.skipped.length} skipped`);
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
