import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { withCliDatabase } from '../src/db/cli-database';
import { BatchName, importCommunityEvidence } from '../src/proof/community-import';

const USAGE = 'usage: npm run import-community -- FILE.jsonl [--batch NAME]   (record format: docs/PROOF.md)';

function usage(problem?: string): never {
  console.error(problem ? `${problem}\n${USAGE}` : USAGE);
  process.exit(2);
}

function readArgs(): { file: string; batch: string } {
  let parsed;
  try {
    parsed = parseArgs({ options: { batch: { type: 'string' } }, allowPositionals: true });
  } catch (err) {
    usage((err as Error).message);
  }
  const [file, ...extra] = parsed.positionals;
  if (!file || extra.length) usage();
  // A batch names one run; by default the file and the minute it was imported.
  const batch =
    parsed.values.batch ??
    `${basename(file)
      .replace(/\.(jsonl|ndjson)$/i, '')
      .replace(/[^A-Za-z0-9._:@-]/g, '_')}@${new Date().toISOString().slice(0, 16)}`;
  if (!BatchName.test(batch)) usage(`invalid --batch ${JSON.stringify(batch)}`);
  return { file, batch };
}

/** `npm run import-community -- FILE [--batch NAME]`: load community evidence; exit 1 when nothing valid was in it. */
async function main() {
  const { file, batch } = readArgs();
  await withCliDatabase(async (db) => {
    try {
      const report = await importCommunityEvidence(db, file, batch);
      for (const s of report.skipped) console.log(`line ${s.line}: skipped: ${s.reason}`);
      console.log(
        `${file}: batch ${batch}: ${report.imported} imported, ${report.updated} updated, ${report.unchanged} unchanged, ` +
          `${report.linked} linked to catalog products, ${report.skipped.length} skipped`,
      );
      if (report.imported + report.updated + report.unchanged === 0) process.exitCode = 1;
    } catch (err) {
      console.error(`${file}: import failed, nothing was imported: ${(err as Error).message ?? err}`);
      process.exitCode = 1;
    }
  });
}

main().catch((err) => {
  console.error(`import-community failed: ${(err as Error).message ?? err}`);
  process.exit(1);
});
