import type { JsonRpcError, Message, Part, Task, TaskState } from './types';

/**
 * The A2A 1.0 JSON-RPC binding's wire format (ProtoJSON of the a2a.proto messages), translated to and
 * from the `kind`-tagged shapes the dispatcher works with (src/a2a/types.ts, the 0.3 binding).
 *
 * 1.0 differs from 0.3 on the wire in the method names (`SendMessage`, `GetTask`, ...), parts
 * without `kind` (`{text}` / `{data}` / `{url}` / `{raw}`), enum strings (`ROLE_USER`,
 * `TASK_STATE_INPUT_REQUIRED`), `SendMessage` answering `{task}` or `{message}`, and errors whose
 * `data` is a list of `google.rpc.ErrorInfo`. Both official 1.x clients (`@a2a-js/sdk`, Python
 * `a2a-sdk`) speak it by default.
 */

export const A2A_V1_PROTOCOL_VERSION = '1.0';

/** 1.0 method name → the dispatcher's operation. */
export const V1_METHODS = {
  SendMessage: 'message/send',
  SendStreamingMessage: 'message/stream',
  GetTask: 'tasks/get',
  ListTasks: 'tasks/list',
  CancelTask: 'tasks/cancel',
  SubscribeToTask: 'tasks/resubscribe',
  CreateTaskPushNotificationConfig: 'tasks/pushNotificationConfig/set',
  GetTaskPushNotificationConfig: 'tasks/pushNotificationConfig/get',
  ListTaskPushNotificationConfigs: 'tasks/pushNotificationConfig/list',
  DeleteTaskPushNotificationConfig: 'tasks/pushNotificationConfig/delete',
  GetExtendedAgentCard: 'agent/getAuthenticatedExtendedCard',
} as const;

export type V1Method = keyof typeof V1_METHODS;
export const isV1Method = (m: string): m is V1Method => Object.prototype.hasOwnProperty.call(V1_METHODS, m);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function partIn(p: unknown): unknown {
  if (!isObj(p)) return p;
  const metadata = isObj(p.metadata) ? p.metadata : undefined;
  if (typeof p.text === 'string') return { kind: 'text', text: p.text, metadata };
  if ('data' in p) return { kind: 'data', data: isObj(p.data) ? p.data : { value: p.data }, metadata };
  if (typeof p.url === 'string' || typeof p.raw === 'string') {
    return { kind: 'file', file: { uri: p.url, bytes: p.raw, name: p.filename, mimeType: p.mediaType }, metadata };
  }
  return p;
}

const ROLE_IN: Record<string, 'user' | 'agent'> = { ROLE_USER: 'user', ROLE_AGENT: 'agent', user: 'user', agent: 'agent' };

/** A 1.0 `Message` as the dispatcher's message (unknown shapes are passed on for its validation to name). */
function messageIn(m: unknown): unknown {
  if (!isObj(m)) return m;
  return {
    kind: 'message',
    messageId: m.messageId,
    role: typeof m.role === 'string' ? (ROLE_IN[m.role] ?? m.role) : m.role,
    parts: Array.isArray(m.parts) ? m.parts.map(partIn) : m.parts,
    contextId: str(m.contextId),
    taskId: str(m.taskId),
    metadata: isObj(m.metadata) ? m.metadata : undefined,
  };
}

/** `SendMessageRequest` params → `message/send` params (`returnImmediately` is 0.3's `blocking: false`). */
export function sendParamsIn(params: unknown): unknown {
  if (!isObj(params)) return params;
  const c = isObj(params.configuration) ? params.configuration : undefined;
  return {
    message: messageIn(params.message),
    configuration: c
      ? {
          blocking: c.returnImmediately === true ? false : undefined,
          acceptedOutputModes: Array.isArray(c.acceptedOutputModes) ? c.acceptedOutputModes : undefined,
          historyLength: typeof c.historyLength === 'number' ? c.historyLength : undefined,
        }
      : undefined,
    metadata: isObj(params.metadata) ? params.metadata : undefined,
  };
}

function partOut(p: Part): Obj {
  const meta = p.metadata ? { metadata: p.metadata } : {};
  if (p.kind === 'text') return { text: p.text, ...meta };
  if (p.kind === 'data') return { data: p.data, mediaType: 'application/json', ...meta };
  return {
    ...(p.file.uri ? { url: p.file.uri } : { raw: p.file.bytes ?? '' }),
    ...(p.file.mimeType ? { mediaType: p.file.mimeType } : {}),
    ...meta,
  };
}

export function messageOut(m: Message): Obj {
  return {
    messageId: m.messageId,
    ...(m.contextId ? { contextId: m.contextId } : {}),
    ...(m.taskId ? { taskId: m.taskId } : {}),
    role: m.role === 'agent' ? 'ROLE_AGENT' : 'ROLE_USER',
    parts: m.parts.map(partOut),
    ...(m.metadata ? { metadata: m.metadata } : {}),
  };
}

const stateOut = (s: TaskState) => (s === 'unknown' ? 'TASK_STATE_UNSPECIFIED' : `TASK_STATE_${s.toUpperCase().replace(/-/g, '_')}`);

export function taskOut(t: Task): Obj {
  return {
    id: t.id,
    contextId: t.contextId,
    status: {
      state: stateOut(t.status.state),
      ...(t.status.message ? { message: messageOut(t.status.message) } : {}),
      timestamp: t.status.timestamp,
    },
    ...(t.artifacts
      ? {
          artifacts: t.artifacts.map((a) => ({
            artifactId: a.artifactId,
            name: a.name,
            description: a.description,
            parts: a.parts.map(partOut),
            ...(a.metadata ? { metadata: a.metadata } : {}),
          })),
        }
      : {}),
    ...(t.history ? { history: t.history.map(messageOut) } : {}),
    ...(t.metadata ? { metadata: t.metadata } : {}),
  };
}

/** `SendMessage` answers a `SendMessageResponse`: the task or the message, by field. */
export const sendResultOut = (r: Task | Message) => (r.kind === 'task' ? { task: taskOut(r) } : { message: messageOut(r) });

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
/** The ErrorInfo `reason` of each A2A error code (A2A 1.0, error handling). */
const A2A_REASONS: Record<number, string> = {
  [-32001]: 'TASK_NOT_FOUND',
  [-32002]: 'TASK_NOT_CANCELABLE',
  [-32003]: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  [-32004]: 'UNSUPPORTED_OPERATION',
  [-32005]: 'CONTENT_TYPE_NOT_SUPPORTED',
  [-32007]: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
};

/**
 * An error in the 1.0 shape: `data` is `[ErrorInfo]`. The gateway's own `{error, message, ...}`
 * envelope travels in the ErrorInfo's `metadata` (a string map), so `metadata.error` is the same code
 * the REST API answers.
 */
export function errorOut(e: JsonRpcError): JsonRpcError {
  const data = isObj(e.data) ? e.data : undefined;
  if (!data) return { code: e.code, message: e.message };
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) {
    if (v === undefined || v === null) continue;
    metadata[k] = Array.isArray(v) ? v.join(',') : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  const reason = A2A_REASONS[e.code] ?? String(data.error ?? 'internal_error').toUpperCase();
  const domain = A2A_REASONS[e.code] ? 'a2a-protocol.org' : 'commerce-gateway';
  return { code: e.code, message: e.message, data: [{ '@type': ERROR_INFO, reason, domain, metadata }] };
}
