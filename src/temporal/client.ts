import { Client, Connection } from '@temporalio/client';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
  namespace: string;
  taskQueue: string;
}

export async function connectTemporal(address: string, namespace: string, taskQueue: string): Promise<TemporalHandle> {
  const connection = await Connection.connect({ address, connectTimeout: 5000 });
  return { connection, client: new Client({ connection, namespace }), namespace, taskQueue };
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
