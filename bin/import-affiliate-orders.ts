import { parseArgs } from 'node:util';
import { withCliDatabase } from '../src/db/cli-database';
import { DEFAULT_ORDER_SOURCE, SourceName, importAffiliateOrders } from '../src/supply/affiliate-orders';

const USAGE = `usage: npm run import-affiliate-orders -- FILE.jsonl|FILE.csv [--source NAME]   (default source ${DEFAULT_ORDER_SOURCE}; format: docs/RECONCILIATION.md)`;

function usage(problem?: string): never {
  console.error(problem ? `${problem}\n${USAGE}` : USAGE);
  process.exit(2);
}

function readArgs(): { file: string; source: string } {
  let parsed;
  try {
    parsed = parseArgs({ options: { source: { type: 'string' } }, allowPositionals: true });
  } catch (err) {
    usage((err as Error).message);
  }
  const [file, ...extra] = parsed.positionals;
  if (!file || extra.length) usage();
  const source = parsed.values.source ?? DEFAULT_ORDER_SOURCE;
  if (!SourceName.test(source)) usage(`invalid --source ${JSON.stringify(source)}: up to 64 lower-case letters, digits and . _ -`);
  return { file, source };
}

/** `npm run import-affiliate-orders -- FILE [--source NAME]`: load a platform order report; exit 1 when nothing valid was in it. */
async function main() {
  const { file, source } = readArgs();
  await withCliDatabase(async (db) => {
    try {
      const report = await importAffiliateOrders(db, file, source);
      if (report.already_imported) {
        console.log(`${file}: already imported as batch ${report.import_batch} (source ${source}); nothing written`);
        return;
      }
      for (const s of report.skipped) console.log(`line ${s.line}: skipped: ${s.reason}`);
      console.log(
        `${file}: source ${source}, batch ${report.import_batch}: ${report.imported} orders imported, ${report.skipped.length} skipped`,
      );
      if (report.imported === 0) process.exitCode = 1;
    } catch (err) {
      console.error(`${file}: import failed, nothing was imported: ${(err as Error).message ?? err}`);
      process.exitCode = 1;
    }
  });
}

main().catch((err) => {
  console.error(`import-affiliate-orders failed: ${(err as Error).message ?? err}`);
  process.exit(1);
});
