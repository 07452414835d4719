import { z } from 'zod';
import { AppError } from '../errors';
import { newId } from '../ids';
import { RuntimeCreateBody, type RuntimeCreateInput } from '../schemas/runtime';
import { startRuntime } from '../runtime/client';
import { getRuntimeRow, loadRuntime } from '../runtime/store';
import { RUN_COMMERCE_RUNTIME, type A2aOrigin, type Detail } from './runtime-task';
import { Buyer, ShippingAddress } from '../schemas/checkout';
import {
  checkoutForToken,
  confirmBuy,
  journeyTask,
  readBuyReply,
  readConsent,
  runtimeFromText,
  asksToBuy,
  type JourneyDeps,
} from './journey';
import { SKILL_OPERATIONS, SkillInputError } from './skills';
import type { A2aCaller, A2aDeps } from './deps';
import { errorOut, isV1Method, sendResultOut, taskOut, V1_METHODS, sendParamsIn } from './v1';
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
 * The gateway's A2A JSON-RPC dispatcher. It answers both bindings on one URL, told apart by method
 * name: A2A 1.0 (`SendMessage`, `GetTask`, ...: what the agent card declares and what the official
 * 1.x clients negotiate) and, for integrations written against it, A2A 0.3 (`message/send`,
 * `tasks/get`). The operations are the same; src/a2a/v1.ts translates the 1.0 wire shapes.
 *
 * `SendMessage` takes: a text part (a shopping request in words → the commerce runtime, and the buy
 * journey when the words ask to buy: src/a2a/journey.ts); a data part naming a skill
 * (`run_commerce_runtime`, or `recommend` / `intent_matching` / `agentic_checkout`: src/a2a/skills.ts);
 * or, with `taskId`, the buyer's reply to a task waiting for consent. Transport concerns (HTTP, auth,
 * body parsing) live in api/a2a.ts.
 */

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

const rpcError = (code: number, error: string, message: string, extra: Record<string, unknown> = {}) =>
  new RpcError(code, message, { error, message, ...extra });

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

const SKILLS = [RUN_COMMERCE_RUNTIME, ...Object.keys(SKILL_OPERATIONS)];

type Request = { kind: 'skill'; operation: string; input: unknown } | { kind: 'text'; text: string };

/**
 * What a new message asks for. A data part is either an envelope `{operation, input}` or the input
 * itself with a metadata hint (`skill`/`skillId` on the part, the message or the request) naming the
 * skill. Without a data part, the text parts are a shopping request in words.
 */
/**
 * Purchase data beside a shopping request in words: a data part `{"purchase": {buyer, shipping_address}}`
 * (what a UCP or ACP merchant needs to open its checkout session), kept with the run for its plan.
 */
const PurchaseData = z.strictObject({ buyer: Buyer.optional(), shipping_address: ShippingAddress.optional() });
export type PurchaseData = z.infer<typeof PurchaseData>;

function purchaseOf(params: MessageSendParams): PurchaseData | undefined {
  const part = params.message.parts.find((p) => p.kind === 'data' && 'purchase' in p.data);
  if (!part || part.kind !== 'data') return undefined;
  const parsed = PurchaseData.safeParse(part.data.purchase);
  if (!parsed.success) throw issuesToRpc(parsed.error, 'purchase', 'invalid_params');
  return parsed.data;
}

function requestOf(params: MessageSendParams): Request {
  const part = params.message.parts.find((p) => p.kind === 'data' && !('purchase' in p.data));
  if (part && part.kind === 'data') {
    if (typeof part.data.operation === 'string') return { kind: 'skill', operation: part.data.operation, input: part.data.input };
    const hint = skillHint(part.metadata, params.message.metadata, params.metadata);
    if (hint) return { kind: 'skill', operation: hint, input: part.data };
    throw rpcError(
      RPC.INVALID_PARAMS,
      'missing_operation',
      `The data part names no operation: send {"operation": "<skill id>", "input": {...}} (skills: ${SKILLS.join(', ')}), the input with metadata.skill = "<skill id>", or a text part with the shopping request in words.`,
    );
  }
  const text = params.message.parts
    .flatMap((p) => (p.kind === 'text' ? [p.text] : []))
    .join('\n')
    .trim();
  if (text) return { kind: 'text', text };
  throw rpcError(
    RPC.INVALID_PARAMS,
    'missing_operation',
    `The message needs a text part (a shopping request in words) or a data part {"operation": "<skill id>", "input": {...}} (skills: ${SKILLS.join(', ')}).`,
  );
}

const journeyDeps = (deps: A2aDeps, caller: A2aCaller): JourneyDeps => ({
  caller: apiCaller(caller.developerId),
  db: deps.db,
  temporal: deps.temporal,
  catalogSnapshots: deps.catalogSnapshots,
  verifyKeys: { signingKey: deps.signingKeys.matchToken, issuer: deps.config.publicBaseUrl },
  keyEncryptionKey: deps.config.KEY_ENCRYPTION_KEY,
  defaultPaymentHandler: deps.config.PROTOCOL_PAYMENT_HANDLER,
});

/** What a run started over A2A keeps in its request (`commerce_runtimes.request.a2a`). */
type StoredOrigin = A2aOrigin & { buy?: boolean; purchase?: PurchaseData; detail?: Detail };

/**
 * The detail a request asks for (`metadata.detail`: "summary" or "full") on the request or the
 * message; undefined when none does (the run's stored choice, else summary, applies).
 */
function detailOf(...sources: Array<Record<string, unknown> | undefined>): Detail | undefined {
  for (const m of sources) if (m?.detail === 'full' || m?.detail === 'summary') return m.detail;
  return undefined;
}

async function runAsTask(
  deps: A2aDeps,
  body: RuntimeCreateInput,
  caller: A2aCaller,
  params: MessageSendParams,
  waitMs: number,
  buy: boolean,
  purchase?: PurchaseData,
): Promise<Task> {
  const detail = detailOf(params.metadata, params.message.metadata);
  const origin: StoredOrigin = {
    context_id: params.message.contextId ?? newId('ctx'),
    message_id: params.message.messageId,
    ...(buy ? { buy } : {}),
    ...(purchase ? { purchase } : {}),
    // GetTask answers a run as its first message asked (full documents, or the compact default).
    ...(detail === 'full' ? { detail } : {}),
  };
  const wait = params.configuration?.blocking === false ? 0 : waitMs;
  const out = await startRuntime(deps, body, caller, wait, { a2a: origin });
  const runtime = out.status === 'completed' ? out.runtime : await loadRuntime(deps.db, out.runtimeId, apiCaller(caller.developerId));
  return journeyTask(journeyDeps(deps, caller), runtime, origin.context_id, {
    buy,
    workflowEnded: out.status === 'completed',
    plan: true,
    purchase,
    detail,
  });
}

function skillReply(params: MessageSendParams, operation: string, body: Record<string, unknown>): Message {
  return {
    kind: 'message',
    messageId: newId('msg'),
    role: 'agent',
    contextId: params.message.contextId ?? newId('ctx'),
    parts: [{ kind: 'data', data: body }],
    metadata: { skill: operation },
  };
}

/** The run behind a task id, if the caller may see it (another developer's run is "not found"). */
async function ownRun(deps: A2aDeps, id: string, caller: A2aCaller) {
  const notFound = () => rpcError(RPC.TASK_NOT_FOUND, 'runtime_not_found', `No task '${id.slice(0, 100)}'.`);
  const row = await getRuntimeRow(deps.db, id).catch((err: unknown) => {
    if (err instanceof AppError && err.status === 404) throw notFound();
    throw err;
  });
  if (row.developer_id && row.developer_id !== caller.developerId) throw notFound();
  const origin = (row.request as { a2a?: Partial<StoredOrigin> }).a2a;
  return { contextId: origin?.context_id ?? id, buy: origin?.buy === true, purchase: origin?.purchase, detail: origin?.detail };
}

/** The buyer's answer in front of the question still asked (the task keeps waiting). */
function stillAsking(task: Task, note: string): Task {
  const first = task.status.message!.parts[0];
  if (first?.kind === 'text') first.text = `${note} ${first.text}`;
  return task;
}

/**
 * A message on an existing task: the buyer's answer to a found offer ("buy it": the checkout is
 * planned and its total put to the buyer) or to the consent request (the checkout is confirmed).
 */
async function continueTask(deps: A2aDeps, params: MessageSendParams, caller: A2aCaller, taskId: string): Promise<Task> {
  const run = await ownRun(deps, taskId, caller);
  const { contextId, buy } = run;
  const detail = detailOf(params.metadata, params.message.metadata) ?? run.detail;
  const purchase = purchaseOf(params) ?? run.purchase;
  const jd = journeyDeps(deps, caller);
  const runtime = await loadRuntime(deps.db, taskId, jd.caller);
  const task = await journeyTask(jd, runtime, contextId, { buy, plan: true, purchase, detail });
  if (task.status.state !== 'input-required') {
    const terminal = ['completed', 'failed', 'canceled', 'rejected'].includes(task.status.state);
    throw rpcError(
      RPC.UNSUPPORTED_OPERATION,
      'task_not_awaiting_input',
      terminal
        ? `Task ${taskId} is ${task.status.state} and takes no more messages; send a new message without taskId to start another.`
        : `Task ${taskId} is ${task.status.state}, not waiting for input; poll GetTask.`,
      { task_state: task.status.state },
    );
  }
  const checkout = await checkoutForToken(deps.db, runtime.match_token!.match_token_id);
  if (!checkout) {
    // A found offer: "buy it" plans its checkout (as a request to buy does), and the task then asks
    // for consent to the plan's total; a plan the checkout refuses ends the task failed with its reason.
    const answer = readBuyReply(params.message);
    if (answer !== 'buy') return stillAsking(task, answer === 'declined' ? 'Not bought.' : 'That is not an answer to buy it.');
    return journeyTask(jd, runtime, contextId, { buy: true, plan: true, purchase, detail });
  }
  const what = `${runtime.proposal!.offer_title} from ${runtime.proposal!.merchant_agent_id}`;
  const reply = readConsent(params.message, checkout, what);
  if (reply.kind !== 'consent') {
    // Still waiting: the status message says what is asked; this reply is answered in front of it.
    return stillAsking(task, reply.kind === 'declined' ? 'Not bought.' : 'That is not an explicit consent.');
  }
  try {
    await confirmBuy(jd, runtime, checkout, reply.consent, reply.payment_credential);
  } catch (err) {
    // A confirm the checkout failed on (e.g. the merchant refused the handoff) is the task's outcome;
    // one refused before anything happened (consent_invalid, ...) is the caller's error.
    if (!(err instanceof AppError)) throw err;
    const after = await journeyTask(jd, runtime, contextId, { buy, plan: false, detail });
    if (after.status.state === 'input-required') throw err;
    return after;
  }
  return journeyTask(jd, await loadRuntime(deps.db, taskId, jd.caller), contextId, { buy, plan: false, detail });
}

async function messageSend(deps: A2aDeps, raw: unknown, caller: A2aCaller, waitMs: number): Promise<Task | Message> {
  const parsed = MessageSendParams.safeParse(raw);
  if (!parsed.success) throw issuesToRpc(parsed.error, 'params', 'invalid_params');
  const params = parsed.data;
  if (params.message.taskId) return continueTask(deps, params, caller, params.message.taskId);
  const req = requestOf(params);
  if (req.kind === 'text') {
    const body = await runtimeFromText(deps, req.text);
    return runAsTask(deps, body, caller, params, waitMs, asksToBuy(req.text), purchaseOf(params));
  }
  if (req.operation === RUN_COMMERCE_RUNTIME) return runAsTask(deps, runtimeInput(req.input), caller, params, waitMs, false);
  const op = SKILL_OPERATIONS[req.operation];
  if (!op) {
    throw rpcError(
      RPC.UNSUPPORTED_OPERATION,
      'unknown_operation',
      `Unknown operation '${req.operation.slice(0, 100)}'; the skills are ${SKILLS.join(', ')}.`,
    );
  }
  try {
    return skillReply(params, req.operation, await op(deps, req.input, caller));
  } catch (err) {
    if (err instanceof SkillInputError) throw rpcError(RPC.INVALID_PARAMS, err.code, err.message, { fields: err.fields });
    throw err;
  }
}

async function tasksGet(deps: A2aDeps, raw: unknown, caller: A2aCaller): Promise<Task> {
  const parsed = TaskQueryParams.safeParse(raw);
  if (!parsed.success) throw issuesToRpc(parsed.error, 'params', 'invalid_params');
  const { id } = parsed.data;
  const { contextId, buy, purchase, detail } = await ownRun(deps, id, caller);
  return journeyTask(journeyDeps(deps, caller), await loadRuntime(deps.db, id, apiCaller(caller.developerId)), contextId, {
    buy,
    plan: true,
    purchase,
    detail: detailOf(parsed.data.metadata) ?? detail,
  });
}

const NO_STREAMING = 'Streaming is not supported (capabilities.streaming is false); use SendMessage and poll GetTask.';
const UNSUPPORTED: Record<string, [number, string]> = {
  'message/stream': [RPC.UNSUPPORTED_OPERATION, NO_STREAMING],
  'tasks/resubscribe': [RPC.UNSUPPORTED_OPERATION, NO_STREAMING],
  'tasks/list': [RPC.UNSUPPORTED_OPERATION, 'Listing tasks is not supported; GET /v1/commerce-runtime/{id} or GetTask reads one.'],
  'tasks/cancel': [
    RPC.TASK_NOT_CANCELABLE,
    'Commerce runtime tasks cannot be canceled; they end under their commerce_budget, and an unconfirmed checkout plan expires on its own.',
  ],
  'tasks/pushNotificationConfig/set': [RPC.PUSH_NOTIFICATION_NOT_SUPPORTED, 'Push notifications are not supported.'],
  'tasks/pushNotificationConfig/get': [RPC.PUSH_NOTIFICATION_NOT_SUPPORTED, 'Push notifications are not supported.'],
  'tasks/pushNotificationConfig/list': [RPC.PUSH_NOTIFICATION_NOT_SUPPORTED, 'Push notifications are not supported.'],
  'tasks/pushNotificationConfig/delete': [RPC.PUSH_NOTIFICATION_NOT_SUPPORTED, 'Push notifications are not supported.'],
  'agent/getAuthenticatedExtendedCard': [
    RPC.EXTENDED_CARD_NOT_CONFIGURED,
    'There is no extended agent card; the public card at /.well-known/agent-card.json is complete.',
  ],
};

function idOf(raw: unknown): JsonRpcId {
  const id = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** One JSON-RPC request in, one JSON-RPC response out (batches are not part of A2A). */
export async function dispatchA2a(deps: A2aDeps, raw: unknown, caller: A2aCaller, opts: DispatchOptions): Promise<JsonRpcResponse> {
  const id = idOf(raw);
  const req = JsonRpcRequest.safeParse(raw);
  if (!req.success) {
    return {
      jsonrpc: '2.0',
      id,
      error: {
        code: RPC.INVALID_REQUEST,
        message: 'Invalid JSON-RPC 2.0 request: send {"jsonrpc": "2.0", "id", "method", "params"}.',
        data: { error: 'invalid_request', message: 'Not a JSON-RPC 2.0 request object.' },
      },
    };
  }
  const v1 = isV1Method(req.data.method);
  const method = v1 ? V1_METHODS[req.data.method as keyof typeof V1_METHODS] : req.data.method;
  const params = v1 && method === 'message/send' ? sendParamsIn(req.data.params) : req.data.params;
  const fail = (error: JsonRpcError): JsonRpcResponse => ({ jsonrpc: '2.0', id, error: v1 ? errorOut(error) : error });
  try {
    switch (method) {
      case 'message/send': {
        const result = await messageSend(deps, params, caller, opts.waitMs);
        return { jsonrpc: '2.0', id, result: v1 ? sendResultOut(result) : result };
      }
      case 'tasks/get': {
        const task = await tasksGet(deps, params, caller);
        return { jsonrpc: '2.0', id, result: v1 ? taskOut(task) : task };
      }
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
