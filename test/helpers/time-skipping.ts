import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { findTemporalTestServer } from '../../src/temporal/cli';
import { SEARCH_ATTRIBUTE_NAMES } from '../../src/temporal/names';

const KEYWORD = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;

/**
 * A time-skipping Temporal server of its own (the pinned binary `npm run temporal:install` puts in
 * .tools/): a workflow timer passes at once while a test awaits a result through `env.client`, so a
 * test runs a production-length timer (a 15-minute plan expiry) without sleeping. It is in-memory and
 * knows no custom search attributes until told; it answers AddSearchAttributes but not
 * ListSearchAttributes, so they are added here rather than by `ensureSearchAttributes`.
 */
export async function startTimeSkippingTemporal(): Promise<TestWorkflowEnvironment> {
  const path = await findTemporalTestServer();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path } } });
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(SEARCH_ATTRIBUTE_NAMES.map((name) => [name, KEYWORD])),
  });
  return env;
}
