import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { tracing } from '../tracing';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
  namespace: string;
  taskQueue: string;
}

export async function connectTemporal(address: string, namespace: string, taskQueue: string): Promise<TemporalHandle> {
  const connection = await Connection.connect({ address, connectTimeout: 5000 });
  // With tracing on, a workflow started inside a traced request carries the trace in its headers.
  const interceptors = tracing() ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
  return { connection, client: new Client({ connection, namespace, interceptors }), namespace, taskQueue };
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
