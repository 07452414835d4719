import { z } from 'zod';

/**
 * The A2A message and task shapes the dispatcher works with: the `kind`-discriminated objects of the
 * A2A 0.3 JSON-RPC binding, which the endpoint still answers as such (`message/send`, `tasks/get`).
 * The 1.0 binding the agent card declares is translated to and from them in src/a2a/v1.ts.
 */

export type TaskState =
  'submitted' | 'working' | 'input-required' | 'completed' | 'canceled' | 'failed' | 'rejected' | 'auth-required' | 'unknown';

export type Part =
  | { kind: 'text'; text: string; metadata?: Record<string, unknown> }
  | { kind: 'data'; data: Record<string, unknown>; metadata?: Record<string, unknown> }
  | { kind: 'file'; file: { uri?: string; bytes?: string; name?: string; mimeType?: string }; metadata?: Record<string, unknown> };

export interface Message {
  kind: 'message';
  messageId: string;
  role: 'user' | 'agent';
  parts: Part[];
  contextId?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
}

export interface TaskStatus {
  state: TaskState;
  timestamp: string;
  message?: Message;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: Record<string, unknown>;
}

export interface Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: Record<string, unknown>;
}

export type JsonRpcId = string | number | null;

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type JsonRpcResponse = { jsonrpc: '2.0'; id: JsonRpcId; result: unknown } | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcError };

/** JSON-RPC 2.0 and A2A error codes (A2A 0.3, section 8). */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** Implementation-defined server error: a gateway business error, `{error, message}` in data. */
  SERVER_ERROR: -32000,
  TASK_NOT_FOUND: -32001,
  TASK_NOT_CANCELABLE: -32002,
  PUSH_NOTIFICATION_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
  EXTENDED_CARD_NOT_CONFIGURED: -32007,
} as const;

const metadata = z.record(z.string(), z.unknown()).optional();

const PartIn = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), text: z.string(), metadata }),
  z.object({ kind: z.literal('data'), data: z.record(z.string(), z.unknown()), metadata }),
  z.object({ kind: z.literal('file'), file: z.record(z.string(), z.unknown()), metadata }),
]);

export const MessageIn = z.object({
  kind: z.literal('message').optional(),
  messageId: z.string().min(1),
  role: z.enum(['user', 'agent']),
  parts: z.array(PartIn).min(1),
  contextId: z.string().min(1).max(200).optional(),
  taskId: z.string().optional(),
  metadata,
});
export type MessageIn = z.infer<typeof MessageIn>;

export const MessageSendParams = z.object({
  message: MessageIn,
  configuration: z
    .object({
      blocking: z.boolean().optional(),
      acceptedOutputModes: z.array(z.string()).optional(),
      historyLength: z.number().int().optional(),
    })
    .loose()
    .optional(),
  metadata,
});
export type MessageSendParams = z.infer<typeof MessageSendParams>;

export const TaskQueryParams = z.object({ id: z.string().min(1), historyLength: z.number().int().optional(), metadata });

export const JsonRpcRequest = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  method: z.string().min(1),
  params: z.unknown().optional(),
});
