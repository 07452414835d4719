import type { z } from 'zod';
import type { Db } from '../db/connect';
import { AppError } from '../errors';
import { newId } from '../ids';
import type { Logger } from '../logger';
import type { TemporalHandle } from '../temporal/client';
import { RuntimeCreateBody, type RuntimeCreateInput } from '../schemas/runtime';
import { startRuntime } from '../runtime/start';
import { getRuntimeRow } from '../runtime/store';
import { loadRuntimeTask, runtimeTask, RUN_COMMERCE_RUNTIME, type A2aOrigin } from './runtime-task';
import { apiCaller } from '../tenancy';
import {
  JsonRpcRequest,
  MessageSendParams,
  RPC,
  TaskQueryParams,
  type JsonRpcError,
  type JsonRpcId,
  type JsonRpcResponse,
  type Message,
  type Task,
} from './types';

/**
 * The gateway's A2A JSON-RPC dispatcher (A2A 0.3 JSON-RPC binding): `message/send` runs one
 * operation named by the message's data part, `tasks/get` reads a run back from the database.
 * Transport concerns (HTTP, auth, body parsing) live in api/a2a.ts.
 */

export interface A2aDeps {
  db: Db;
  temporal: TemporalHandle | null;
  logger: Logger;
}

export interface A2aCaller {
  developerId?: string;
  keyId?: string;
}

export interface DispatchOptions {
  /** How long message/send waits for the run before answering a `working` task (configuration.blocking=false → 0). */
  waitMs: number;
  /** Renders an unexpected error (logged by the caller) as a JSON-RPC error. */
  internalError: (err: unknown) => JsonRpcError;
}

/** A JSON-RPC error raised on purpose; `data` carries the gateway's `{error, message}`. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: { error: string; message: string } & Record<string, unknown>,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

const rpcError = (code: number, error: string, message: string, extra: Record<string, unknown> = {}) => new RpcError(code, message, { error, message, ...extra });

/** A business error as a JSON-RPC error: validation → -32602 Invalid params, anything else → -32000, the envelope in data. */
export function appErrorToRpc(err: AppError): JsonRpcError {
  const data = { error: err.code, message: err.message, ...(err.details ?? {}), http_status: err.status };
  const code = err.status === 400 || err.status === 422 ? RPC.INVALID_PARAMS : RPC.SERVER_ERROR;
  return { code, message: err.message, data };
}

function issuesToRpc(error: z.ZodError, where: string, code: string): RpcError {
  const fields = [...new Set(error.issues.map((i) => [where, ...i.path].filter((p) => p !== '').join('.')))];
  const first = error.issues[0];
  const at = [where, ...(first?.path ?? [])].filter((p) => p !== '').join('.');
  return rpcError(RPC.INVALID_PARAMS, code, `Invalid ${at || where}: ${first?.message ?? 'invalid value'}`, { fields });
}

/** The runtime body, validated as POST /v1/commerce-runtime validates it (missing_intent, invalid_payload). */
function runtimeInput(input: unknown): RuntimeCreateInput {
  const given = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  if (given.intent === undefined || given.intent === null || given.intent === '') {
    throw rpcError(RPC.INVALID_PARAMS, 'missing_intent', 'Missing required field(s): intent.', { fields: ['intent'] });
  }
  const parsed = RuntimeCreateBody.safeParse(input);
  if (!parsed.success) throw issuesToRpc(parsed.error, 'input', 'invalid_payload');
  return parsed.data;
}

const hintKeys = ['skill', 'skillId', 'skill_id', 'operation'] as const;
function skillHint(...sources: Array<Record<string, unknown> | undefined>): string | undefined {
  for (const m of sources) for (const k of hintKeys) if (typeof m?.[k] === 'string') return m[k] as string;
  return undefined;
}

/**
 * Which operation a message asks for, and its input. Either the data part is an envelope
 * `{operation, input}`, or the data part is the input itself and a metadata hint (`skill`/`skillId`
 * on the part, the message or the request) names the skill.
 */
function operationOf(params: MessageSendParams): { operation: string; input: unknown } {
  const part = params.message.parts.find((p) => p.kind === 'data');
  if (!part || part.kind !== 'data') {
    throw rpcError(RPC.INVALID_PARAMS, 'missing_operation', `The message needs a data part {"operation": "${RUN_COMMERCE_RUNTIME}", "input": {...}}.`);
  }
  if (typeof part.data.operation === 'string') return { operation: part.data.operation, input: part.data.input };
  const hint = skillHint(part.metadata, params.message.metadata, params.metadata);
  if (hint) return { operation: hint, input: part.data };
  throw rpcError(RPC.INVALID_PARAMS, 'missing_operation', `The data part names no operation: send {"operation": "${RUN_COMMERCE_RUNTIME}", "input": {...}}, or the input with metadata.skill = "${RUN_COMMERCE_RUNTIME}".`);
}

async function messageSend(deps: A2aDeps, raw: unknown, caller: A2aCaller, waitMs: number): Promise<Task | Message> {
  const parsed = MessageSendParams.safeParse(raw);
  if (!parsed.success) throw issuesToRpc(parsed.error, 'params', 'invalid_params');
  const params = parsed.data;
  const { operation, input } = operationOf(params);
  if (operation !== RUN_COMMERCE_RUNTIME) {
    throw rpcError(RPC.UNSUPPORTED_OPERATION, 'unknown_operation', `Unknown operation '${operation.slice(0, 100)}'; this endpoint runs '${RUN_COMMERCE_RUNTIME}'.`);
  }
  const body = runtimeInput(input);
  const origin: A2aOrigin = { context_id: params.message.contextId ?? newId('ctx'), message_id: params.message.messageId };
  const wait = params.configuration?.blocking === false ? 0 : waitMs;
  const out = await startRuntime(deps, body, caller, wait, { a2a: origin });
  if (out.status === 'completed') return runtimeTask(out.runtime, origin.context_id, { workflowEnded: true });
  return loadRuntimeTask(deps.db, out.runtimeId, origin.context_id, apiCaller(caller.developerId));
}

async function tasksGet(deps: A2aDeps, raw: unknown, caller: A2aCaller): Promise<Task> {
  const parsed = TaskQueryParams.safeParse(raw);
  if (!parsed.success) throw issuesToRpc(parsed.error, 'params', 'invalid_params');
  const { id } = parsed.data;
  const notFound = () => rpcError(RPC.TASK_NOT_FOUND, 'runtime_not_found', `No task '${id.slice(0, 100)}'.`);
  const row = await getRuntimeRow(deps.db, id).catch((err: unknown) => {
    if (err instanceof AppError && err.status === 404) throw notFound();
    throw err;
  });
  // A run is visible to its developer's keys only.
  if (row.developer_id && row.developer_id !== caller.developerId) throw notFound();
  const origin = (row.request as { a2a?: Partial<A2aOrigin> }).a2a;
  return loadRuntimeTask(deps.db, id, origin?.context_id ?? id, apiCaller(caller.developerId));
}

const UNSUPPORTED: Record<string, [number, string]> = {
  'message/stream': [RPC.UNSUPPORTED_OPERATION, 'Streaming is not supported (capabilities.streaming is false); use message/send and tasks/get.'],
  'tasks/resubscribe': [RPC.UNSUPPORTED_OPERATION, 'Streaming is not supported (capabilities.streaming is false); poll tasks/get.'],
  'tasks/cancel': [RPC.TASK_NOT_CANCELABLE, 'Commerce runtime tasks cannot be canceled; they end under their commerce_budget.'],
  'tasks/pushNotificationConfig/set': [RPC.PUSH_NOTIFICATION_NOT_SUPPORTED, 'Push notifications are not supported.'],
  'tasks/pushNotificationConfig/get': [RPC.PUSH_NOTIFICATION_NOT_SUPPORTED, 'Push notifications are not supported.'],
  'tasks/pushNotificationConfig/list': [RPC.PUSH_NOTIFICATION_NOT_SUPPORTED, 'Push notifications are not supported.'],
  'tasks/pushNotificationConfig/delete': [RPC.PUSH_NOTIFICATION_NOT_SUPPORTED, 'Push notifications are not supported.'],
};

function idOf(raw: unknown): JsonRpcId {
  const id = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** One JSON-RPC request in, one JSON-RPC response out (batches are not part of A2A). */
export async function dispatchA2a(deps: A2aDeps, raw: unknown, caller: A2aCaller, opts: DispatchOptions): Promise<JsonRpcResponse> {
  const id = idOf(raw);
  const fail = (error: JsonRpcError): JsonRpcResponse => ({ jsonrpc: '2.0', id, error });
  const req = JsonRpcRequest.safeParse(raw);
  if (!req.success) {
    return fail({ code: RPC.INVALID_REQUEST, message: 'Invalid JSON-RPC 2.0 request: send {"jsonrpc": "2.0", "id", "method", "params"}.', data: { error: 'invalid_request', message: 'Not a JSON-RPC 2.0 request object.' } });
  }
  const { method, params } = req.data;
  try {
    switch (method) {
      case 'message/send':
        return { jsonrpc: '2.0', id, result: await messageSend(deps, params, caller, opts.waitMs) };
      case 'tasks/get':
        return { jsonrpc: '2.0', id, result: await tasksGet(deps, params, caller) };
      default: {
        const unsupported = UNSUPPORTED[method];
        if (unsupported) throw rpcError(unsupported[0], 'unsupported_operation', unsupported[1]);
        throw rpcError(RPC.METHOD_NOT_FOUND, 'method_not_found', `Method not found: ${method.slice(0, 100)}.`);
      }
    }
  } catch (err) {
    if (err instanceof RpcError) return fail({ code: err.code, message: err.message, ...(err.data ? { data: err.data } : {}) });
    if (err instanceof AppError) return fail(appErrorToRpc(err));
    return fail(opts.internalError(err));
  }
}
