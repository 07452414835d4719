import { findTemporalCli } from '../src/temporal/cli';

try {
  console.log(await findTemporalCli({ install: true, log: console.log }));
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
