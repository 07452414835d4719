import { Client, Connection } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { tracing } from '../tracing';

interface TemporalHandleBase {
  client: Client;
  namespace: string;
  taskQueue: string;
}
/**
 * The process's way to Temporal. `eagerStart`: the worker of this process polls the task queue on
 * this very connection (`npm start`), so a new run's first workflow task comes back with the start
 * call and runs here, without a trip through the task queue (eager workflow start). An API process
 * on its own has a client connection and no eager start.
 */
export type TemporalHandle = TemporalHandleBase &
  ({ connection: Connection; eagerStart: false } | { connection: NativeConnection; eagerStart: true });

/** The client on a connection; with tracing on, a workflow started inside a traced request carries the trace in its headers. */
const clientOn = <C extends Connection | NativeConnection>(connection: C, namespace: string, taskQueue: string) => ({
  connection,
  client: new Client({
    connection,
    namespace,
    interceptors: tracing() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined,
  }),
  namespace,
  taskQueue,
});

export async function connectTemporal(address: string, namespace: string, taskQueue: string): Promise<TemporalHandle> {
  const connection = await Connection.connect({ address, connectTimeout: 5000 });
  return { ...clientOn(connection, namespace, taskQueue), eagerStart: false };
}

/**
 * For a process that runs the worker too (`npm start`): one native connection for the client and
 * the worker (worker/run.ts takes it), which is what lets a start ask for eager execution. The server
 * hands the run's first workflow task back in the start's answer, to this process's worker, when it
 * has a free slot; otherwise the task goes through the task queue as usual.
 */
export async function connectTemporalWithWorker(address: string, namespace: string, taskQueue: string): Promise<TemporalHandle> {
  // Loaded here only: an API process on its own never loads the worker's native bridge.
  const { NativeConnection } = await import('@temporalio/worker');
  const connection = await NativeConnection.connect({ address });
  return { ...clientOn(connection, namespace, taskQueue), eagerStart: true };
}

/** True when the server answers for our namespace within the deadline (used by /healthz). */
export async function temporalAnswers(t: TemporalHandle, timeoutMs = 2000): Promise<boolean> {
  try {
    await t.connection.withDeadline(Date.now() + timeoutMs, () =>
      t.connection.workflowService.describeNamespace({ namespace: t.namespace }),
    );
    return true;
  } catch {
    return false;
  }
}
