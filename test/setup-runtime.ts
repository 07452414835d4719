import { DefaultLogger, Runtime } from '@temporalio/worker';

// Worker state changes are logged at INFO by the SDK; in tests only warnings are worth reading.
Runtime.install({ logger: new DefaultLogger('WARN') });
