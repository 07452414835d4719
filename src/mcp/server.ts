import type { SemanticTier } from '../recommend/semantic';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config';
import type { Db } from '../db/connect';
import { databaseUnavailable } from '../db/connect';
import type { Logger } from '../logger';
import type { SigningKeys } from '../crypto/signing-keys';
import type { TemporalHandle } from '../temporal/client';
import type { CardFactsCache } from '../catalog/cards';
import type { CatalogSnapshotCache } from '../recommend/catalog-snapshot';
import type { RecommendationRecorder } from '../recommend/record';
import { AppError } from '../errors';
import { hasScope, type ApiKeyPrincipal } from '../console/api-keys';
import type { ApiKeyScope } from '../schemas/console';
import { IntentCreateBody } from '../schemas/intents';
import { RuntimeCreateBody } from '../schemas/runtime';
import { CheckoutCreateBody } from '../schemas/checkout';
import { RENDER_LIMIT_MAX } from '../schemas/match';
import { recommend, recommendDeps } from '../recommend/recommend';
import { intentView, getIntent } from '../matching/intents';
import { createIntentAndStartSurge } from '../dispatch/client';
import { renderMatchSession, renderMatchSessionBody, type FrozenTopCache } from '../matching/session-render';
import { acceptMatch, getMatchToken, matchTokenView } from '../matching/match-tokens';
import { createMatchSession, matchSessionView } from '../matching/match-sessions';
import { getProposal, listProposals, proposalView } from '../matching/proposals';
import { checkoutView, getCheckoutAs, shippingMinor, type CheckoutView } from '../checkout/checkouts';
import { checkoutNextSteps } from '../checkout/next-steps';
import { fromMinorUnits } from '../money';
import { confirmCheckout, createCheckout, settledCheckout } from '../checkout/client';
import { loadRuntime } from '../runtime/store';
import { DEFAULT_WAIT_S, MAX_WAIT_S, startRuntime } from '../runtime/client';
import {
  CheckoutOut,
  checkoutSummary,
  IntentOut,
  intentSummary,
  ProposalsOut,
  proposalsSummary,
  RecommendOut,
  recommendSummary,
  RuntimeOut,
  runtimeSummary,
  SessionOut,
  sessionSummary,
  TokenOut,
  tokenSummary,
  type Detail,
} from './summaries';
import { apiCaller } from '../tenancy';

/**
 * The gateway's shopper journey as MCP tools (docs/MCP.md): recommend or ask merchants, rank, accept,
 * plan, confirm with the user's consent, follow the order. One server is built per HTTP request for
 * the API key that request authenticated (stateless Streamable HTTP), so every tool runs as that key,
 * checks that key's scope and passes its developer to the domain functions, exactly like the REST
 * route it mirrors. Input schemas are written for LLMs: flat, every field described, no references.
 * Answers are compact summaries (the `summaries.ts` shapes, also the outputSchema); `detail: "full"`
 * adds the REST body.
 */

/** What the tools need from the API process (AppDeps satisfies it). */
export interface McpDeps {
  config: Config;
  db: Db;
  temporal: TemporalHandle | null;
  signingKeys: SigningKeys;
  cardFacts?: CardFactsCache;
  frozenTops: FrozenTopCache;
  catalogSnapshots: CatalogSnapshotCache;
  recommendations: RecommendationRecorder;
  /** The semantic tier of recommendations (SEMANTIC_SEARCH); absent: full text alone. */
  semantic?: SemanticTier;
  logger: Logger;
}

export interface McpCaller {
  principal: ApiKeyPrincipal;
  /** The HTTP request id, recorded on what the tools write (e.g. the accept trace). */
  requestId: string;
}

export const MCP_TOOL_SCOPES = {
  recommend: 'recommend',
  create_intent: 'intents',
  list_proposals: 'proposals',
  create_match: 'match',
  get_match_session: 'match',
  accept_match: 'match',
  plan_checkout: 'checkout',
  confirm_checkout: 'checkout',
  get_checkout: 'checkout',
  run_commerce_runtime: 'runtime',
  get_runtime: 'runtime',
} as const satisfies Record<string, ApiKeyScope>;

export type McpToolName = keyof typeof MCP_TOOL_SCOPES;

// ---------------------------------------------------------------------------------------------
// Input fields. Each is described for the model that fills it; ids are the gateway's own.

const id = (what: string) => z.string().trim().min(1).max(100).meta({ description: what });
const detail = z.enum(['summary', 'full']).default('summary').meta({
  description:
    'summary (default): ids, titles, prices, why and the next step. full: also the complete REST documents under `full` (large).',
});
const shopperWords = (what: string) => z.string().trim().min(1).max(500).meta({ description: what });
const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code such as USD')
  .meta({ description: 'ISO 4217 currency code, e.g. USD.' });
const budgetMax = z
  .number()
  .positive()
  .max(10_000_000)
  .optional()
  .meta({ description: 'Most the user will pay, in major units (e.g. 120). Read from the words when absent ("under $120").' });
const budgetMin = z
  .number()
  .min(0)
  .max(10_000_000)
  .optional()
  .meta({ description: 'Least the user wants to pay, in major units. Rarely needed.' });
const region = z
  .string()
  .regex(/^[A-Za-z]{2}$/)
  .optional()
  .meta({ description: 'Ship-to country, ISO 3166-1 alpha-2 (US, GB, CA). Read from the words when absent.' });
const tags = z
  .array(z.string().trim().min(1).max(64))
  .max(50)
  .optional()
  .meta({ description: 'Topic tags merchants subscribe to (e.g. running, shoes). Read from the words when absent.' });

const RecommendInput = z.object({
  intent: shopperWords(
    'What the user wants, in their words, e.g. "trail running shoes under $120". Budget, region and audience are read from it.',
  ),
  limit: z.number().int().min(1).max(10).default(3).meta({ description: 'How many products to recommend, 1..10 (default 3).' }),
  region,
  channel: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .optional()
    .meta({ description: 'Where the recommendation is shown (e.g. chat); recorded with the clicks.' }),
  detail,
});

const CreateIntentInput = z.object({
  raw_query: z
    .string()
    .trim()
    .min(1)
    .max(2000)
    .meta({ description: 'What the user wants, in their words. Merchants subscribed to its tags are asked for proposals.' }),
  intent_tags: tags,
  budget_max: budgetMax,
  budget_min: budgetMin,
  budget_currency: currency.optional(),
  region,
  target_audience: z.string().trim().min(1).max(200).optional().meta({ description: 'Who it is for, e.g. "my 8-year-old".' }),
  deadline: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: 'Latest acceptable delivery time (ISO 8601); offers that cannot arrive in time rank last.' }),
  detail,
});

const ListProposalsInput = z.object({
  intent_id: id('The intent whose proposals to list (from create_intent, recommend or run_commerce_runtime).'),
  include_expired: z.boolean().default(false).meta({ description: 'Also list expired proposals (default false).' }),
  detail,
});

const CreateMatchInput = z.object({
  intent_id: id('The intent whose proposals to rank.'),
  proposal_ids: z
    .array(z.string().trim().min(1).max(100))
    .min(1)
    .max(500)
    .optional()
    .meta({ description: 'Rank only these proposals of the intent; absent: every active one.' }),
  detail,
});

const GetMatchInput = z.object({
  match_session_id: id('The match session (from recommend or create_match).'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(RENDER_LIMIT_MAX)
    .default(5)
    .meta({ description: `How many ranked proposals to show, 1..${RENDER_LIMIT_MAX} (default 5).` }),
  detail,
});

const AcceptInput = z.object({
  match_session_id: id('The match session whose proposal to accept.'),
  proposal_id: id('The ranked proposal to accept; absent: the best ranked (rank 1, best_proposal_id).').optional(),
  match_token_id: id('Confirm this existing match token of the session instead of minting one.').optional(),
  detail,
});

const PlanInput = z.object({
  match_token_id: id('The accepted match token (from accept_match or run_commerce_runtime).'),
  buyer_agent_id: z.string().trim().min(1).max(200).meta({ description: "Your agent's id: who buys on the user's behalf." }),
  amount: z.number().positive().max(10_000_000).optional().meta({
    description:
      'The total you expect to pay (price plus shipping), in major units; refused when the plan differs. Absent: the proposal price plus its shipping.',
  }),
  currency: currency.optional(),
  ship_to_name: z.string().trim().min(1).max(200).optional().meta({ description: 'Shipping address: recipient name.' }),
  ship_to_line1: z.string().trim().min(1).max(300).optional().meta({ description: 'Shipping address: street and number.' }),
  ship_to_line2: z.string().trim().min(1).max(300).optional().meta({ description: 'Shipping address: apartment, suite (optional).' }),
  ship_to_city: z.string().trim().min(1).max(200).optional().meta({ description: 'Shipping address: city.' }),
  ship_to_region: z.string().trim().min(1).max(200).optional().meta({ description: 'Shipping address: state or province.' }),
  ship_to_postal_code: z.string().trim().min(1).max(40).optional().meta({ description: 'Shipping address: postal code.' }),
  ship_to_country: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .optional()
    .meta({ description: 'Shipping address: country, ISO 3166-1 alpha-2.' }),
  buyer_full_name: z.string().trim().min(1).max(200).optional().meta({ description: "Buyer's full name (UCP/ACP merchants need it)." }),
  buyer_email: z.email().max(320).optional().meta({ description: "Buyer's e-mail (UCP/ACP merchants need it)." }),
  buyer_phone: z.string().trim().min(4).max(32).optional().meta({ description: "Buyer's phone (optional)." }),
  detail,
});

const ConfirmInput = z.object({
  checkout_id: id('The planned checkout (from plan_checkout).'),
  consent_granted: z.boolean().meta({
    description: 'Must be true, and only after the user explicitly said yes to this product and total. Never set it on your own.',
  }),
  consent_statement: z
    .string()
    .trim()
    .min(1)
    .max(2000)
    .meta({ description: 'What the user agreed to, in words, e.g. "Yes, buy the Ember Trail for $93.89". Required.' }),
  amount: z
    .number()
    .positive()
    .max(10_000_000)
    .meta({ description: "The plan total the user agreed to (plan_checkout's total), in major units; must equal the plan." }),
  currency: currency.meta({ description: "The plan currency (plan_checkout's currency)." }),
  payment_handler: z.string().trim().min(1).max(200).optional().meta({
    description:
      "UCP/ACP merchants: the payment handler (an id from the plan's payment handlers, named in plan_checkout's next_step) the token is for. Absent: the deployment's configured handler, if any.",
  }),
  payment_token: z
    .string()
    .min(1)
    .max(8000)
    .optional()
    .meta({ description: "The payment_handler's instrument token (e.g. a PSP's delegated token)." }),
  detail,
});

const GetCheckoutInput = z.object({ checkout_id: id('The checkout to read.'), detail });

const RuntimeInput = z.object({
  intent: shopperWords(
    'What the user wants, in their words, e.g. "trail running shoes under $120". Merchants subscribed to its tags are asked, the catalog fills in.',
  ),
  intent_tags: tags,
  budget_max: budgetMax,
  region,
  max_merchant_queries: z
    .number()
    .int()
    .min(1)
    .max(20)
    .optional()
    .meta({ description: 'How many merchant agents the loop may ask, 1..20 (default 5).' }),
  entry_agent_id: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: "Your agent's id, recorded on the run (default api-caller)." }),
  wait_s: z
    .number()
    .min(0)
    .max(MAX_WAIT_S)
    .optional()
    .meta({
      description: `How long to wait for the loop, in seconds (default ${DEFAULT_WAIT_S}, at most ${MAX_WAIT_S}); past it the answer is the runtime id to poll with get_runtime.`,
    }),
  detail,
});

const GetRuntimeInput = z.object({ runtime_id: id('The commerce runtime (from run_commerce_runtime).'), detail });

// ---------------------------------------------------------------------------------------------

function ok(body: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}

/**
 * A business error: `isError` with the `{error, message}` JSON as text. No structuredContent: clients
 * validate structuredContent against the tool's outputSchema even on errors (the TypeScript SDK does),
 * and an error is not the tool's output.
 */
function failed(code: string, message: string, details?: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: code, message, ...(details ?? {}) }) }] };
}

/** Business errors become tool results with isError (never a transport failure); nothing internal leaks. */
function errorResult(deps: McpDeps, caller: McpCaller, tool: string, err: unknown): CallToolResult {
  if (err instanceof AppError) return failed(err.code, err.message, err.details);
  const unavailable = databaseUnavailable(err);
  if (unavailable) {
    deps.logger.warn({ err, reason: unavailable.reason, requestId: caller.requestId, tool }, `database ${unavailable.reason}`);
    return failed('service_unavailable', unavailable.message);
  }
  deps.logger.error({ err, requestId: caller.requestId, tool }, 'unhandled MCP tool error');
  return failed('internal_error', `Internal error. Quote request id ${caller.requestId} when reporting it.`);
}

/** confirm_checkout's payment_handler and payment_token as the REST body's payment_credential (both, or neither). */
function paymentCredentialOf(handler: string | undefined, token: string | undefined) {
  if (!handler && !token) return {};
  if (!handler || !token) {
    const missing = handler ? 'payment_token' : 'payment_handler';
    throw new AppError(400, 'invalid_payload', `Invalid ${missing}: payment_handler and payment_token go together.`, { fields: [missing] });
  }
  return { payment_credential: { handler, token } };
}

/** Checks a domain-shaped input against the REST route's own zod schema, so both refuse alike. */
function restShaped<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const fields = [...new Set(parsed.error.issues.map((i) => i.path.join('.') || '(body)'))];
  throw new AppError(400, 'invalid_payload', `Invalid ${fields.join(', ')}: ${parsed.error.issues[0]?.message ?? 'invalid'}`, { fields });
}

const INSTRUCTIONS = [
  'Commerce Intent-Matching Gateway: find products for a shopper and buy the one they choose.',
  'Journey (the buy_flow prompt walks through it): recommend (catalog picks, ranked; items[0] is the best) or create_intent → list_proposals → create_match (merchant offers), or run_commerce_runtime (the whole loop in one call);',
  'then accept_match (default: the best ranked) → plan_checkout → ask the user and, only after an explicit yes, confirm_checkout with consent_granted and consent_statement → get_checkout for the order or continue_url.',
  'Pass every buy_url and continue_url to the user verbatim. Answers are compact; detail "full" returns the full documents.',
].join(' ');

export function createMcpServer(deps: McpDeps, caller: McpCaller, info: { name: string; version: string }): McpServer {
  const server = new McpServer(info, { instructions: INSTRUCTIONS });
  const { principal } = caller;
  const developerId = principal.developerId;
  /** Every domain call runs as the key's developer (docs/TENANCY.md). */
  const me = apiCaller(developerId);

  /** Scope check, then the operation; its summary (or the error) as the tool result. */
  const run = async (tool: McpToolName, op: () => Promise<Record<string, unknown>>): Promise<CallToolResult> => {
    const scope = MCP_TOOL_SCOPES[tool];
    if (!hasScope(principal, scope)) return failed('insufficient_scope', `This API key lacks the '${scope}' scope.`);
    try {
      return ok(await op());
    } catch (err) {
      return errorResult(deps, caller, tool, err);
    }
  };

  /** A checkout with its next steps worded for MCP (src/checkout/next-steps.ts): the steps REST answers. */
  const summarize = async (view: CheckoutView, d: Detail) => checkoutSummary(view, d, await checkoutNextSteps(deps.db, view, 'mcp'));

  const renderSession = async (sessionId: string, limit: number, d: Detail) => {
    const r = await renderMatchSession(deps.db, sessionId, limit, me, deps.frozenTops);
    const body = d === 'full' ? await renderMatchSessionBody(deps.db, sessionId, limit, me, deps.frozenTops) : null;
    return sessionSummary(
      r.session,
      r.top,
      r.tokens.map((t) => matchTokenView(t, me)),
      r.cards,
      d,
      body,
    );
  };

  server.registerTool(
    'recommend',
    {
      title: 'Recommend products',
      description:
        'Recommend catalog products for what the user wants, in their words (as GET /v1/recommend). Returns ranked picks (items[0] is the best and is what accept_match takes by default), a shopper_guide to show, and match_session_id to buy from. Pass each buy_url to the user verbatim. Scope: recommend.',
      inputSchema: RecommendInput,
      outputSchema: RecommendOut,
      annotations: { readOnlyHint: false, openWorldHint: false },
    },
    ({ detail: d, ...input }) =>
      run('recommend', async () => recommendSummary(await recommend(recommendDeps(deps), input, { developerId }), d)),
  );

  server.registerTool(
    'create_intent',
    {
      title: 'Ask merchants: create a shopping intent',
      description:
        'Store what the user wants as an intent (as POST /v1/intents) and ask the merchant agents subscribed to its tags for proposals. Budget, region and tags are read from raw_query when not given. Then list_proposals and create_match. Scope: intents.',
      inputSchema: CreateIntentInput,
      outputSchema: IntentOut,
    },
    ({ detail: d, budget_max, budget_min, budget_currency, deadline, ...rest }) =>
      run('create_intent', async () => {
        const body = restShaped(IntentCreateBody, {
          ...rest,
          ...(budget_max !== undefined || budget_min !== undefined
            ? { budget_range: { max: budget_max, min: budget_min, currency: budget_currency?.toUpperCase() ?? 'USD' } }
            : {}),
          ...(deadline ? { time_window: { deadline } } : {}),
          source_channel: 'mcp',
        });
        return intentSummary(intentView(await createIntentAndStartSurge(deps, body, { developerId })), d);
      }),
  );

  server.registerTool(
    'list_proposals',
    {
      title: 'List the proposals of an intent',
      description:
        'The merchant proposals answering an intent, oldest first (as GET /v1/intents/{id}/proposals). Then create_match to rank them. Scope: proposals.',
      inputSchema: ListProposalsInput,
      outputSchema: ProposalsOut,
      annotations: { readOnlyHint: true },
    },
    ({ intent_id, include_expired, detail: d }) =>
      run('list_proposals', async () => {
        await getIntent(deps.db, intent_id, me);
        const proposals = await listProposals(deps.db, intent_id, include_expired, me);
        return proposalsSummary(intent_id, proposals.map(proposalView), d);
      }),
  );

  server.registerTool(
    'create_match',
    {
      title: 'Rank the proposals of an intent',
      description:
        "Rank an intent's live proposals (as POST /v1/match): price fit, trust, stock, delivery, evidence, commission, each with its reason. Returns the ranked picks (best first) and match_session_id for accept_match. Scope: match.",
      inputSchema: CreateMatchInput,
      outputSchema: SessionOut,
    },
    ({ intent_id, proposal_ids, detail: d }) =>
      run('create_match', async () => {
        const session = await createMatchSession(
          deps.db,
          { intent_id, proposal_ids },
          {
            ttlSeconds: deps.config.MATCH_SESSION_TTL_S,
            caller: me,
            publicBaseUrl: deps.config.publicBaseUrl,
            cardFacts: deps.cardFacts,
          },
        );
        if (d === 'full') {
          const r = await renderMatchSession(deps.db, session.match_session_id, RENDER_LIMIT_MAX, me, deps.frozenTops);
          return sessionSummary(session, r.top, [], r.cards, d, { match_session: matchSessionView(session) });
        }
        return renderSession(session.match_session_id, RENDER_LIMIT_MAX, d);
      }),
  );

  server.registerTool(
    'get_match_session',
    {
      title: 'Read a match session',
      description:
        'A match session (as GET /v1/match/{id}): its ranked picks (best first, with buy_url), status and match tokens. Scope: match.',
      inputSchema: GetMatchInput,
      outputSchema: SessionOut,
      annotations: { readOnlyHint: true },
    },
    ({ match_session_id, limit, detail: d }) => run('get_match_session', () => renderSession(match_session_id, limit, d)),
  );

  server.registerTool(
    'accept_match',
    {
      title: 'Accept a ranked proposal',
      description:
        'Accept a proposal of a match session for a signed match token (as POST /v1/match/{id}/accept). proposal_id absent: the best ranked (the top pick of recommend). Accepting the same proposal again returns the same token. Then plan_checkout. Scope: match.',
      inputSchema: AcceptInput,
      outputSchema: TokenOut,
    },
    ({ match_session_id, detail: d, ...body }) =>
      run('accept_match', async () => {
        const token = await acceptMatch(
          {
            db: deps.db,
            signingKey: deps.signingKeys.matchToken,
            issuer: deps.config.publicBaseUrl,
            ttlSeconds: deps.config.MATCH_TOKEN_TTL_S,
          },
          match_session_id,
          body,
          { requestId: caller.requestId, keyId: principal.keyId },
          me,
        );
        const view = matchTokenView(token, me);
        return tokenSummary({ ...view, expires_at: view.expires_at ?? '' }, d, { match_token: view });
      }),
  );

  server.registerTool(
    'plan_checkout',
    {
      title: 'Plan the checkout of an accepted proposal',
      description:
        'Plan the purchase for an accepted match token (as POST /v1/agentic-checkout): checks proposal, stock, token and amount, and answers with the line items, total and checkout mode. Nothing is paid yet: show the plan to the user and ask for consent, then confirm_checkout. Scope: checkout.',
      inputSchema: PlanInput,
      outputSchema: CheckoutOut,
    },
    ({ match_token_id, buyer_agent_id, amount, currency: cur, detail: d, buyer_full_name, buyer_email, buyer_phone, ...address }) =>
      run('plan_checkout', async () => {
        const token = await getMatchToken(deps.db, match_token_id, me);
        let total = amount;
        if (total === undefined) {
          const proposal = await getProposal(deps.db, token.proposal_id, me);
          total = fromMinorUnits(proposal.price_cents + shippingMinor(proposal.shipping_commitment, proposal.currency), proposal.currency);
        }
        const shipping = Object.fromEntries(
          Object.entries(address)
            .filter(([, v]) => v !== undefined)
            .map(([k, v]) => [k.replace(/^ship_to_/, ''), v]),
        );
        const buyer =
          buyer_full_name || buyer_email || buyer_phone
            ? { full_name: buyer_full_name, email: buyer_email, ...(buyer_phone ? { phone: buyer_phone } : {}) }
            : undefined;
        const view = await settledCheckout(
          deps.db,
          await createCheckout(
            deps.temporal,
            deps.db,
            restShaped(CheckoutCreateBody, {
              buyer_agent_id,
              intent_id: token.intent_id,
              proposal_id: token.proposal_id,
              match_token_id,
              amount: total,
              currency: (cur ?? token.currency).toUpperCase(),
              ...(Object.keys(shipping).length ? { shipping_address: shipping } : {}),
              ...(buyer ? { buyer } : {}),
              metadata: { via: 'mcp' },
            }),
            me,
            undefined,
            undefined,
            'mcp',
          ),
        );
        return summarize(view, d);
      }),
  );

  server.registerTool(
    'confirm_checkout',
    {
      title: "Confirm a checkout with the user's explicit consent",
      description:
        "Buy: confirm a planned checkout (as POST /v1/agentic-checkout/{id}/confirm). REQUIRES the user's explicit consent: call it only after the user said yes to this product and total, with consent_granted true and consent_statement saying what they agreed to; amount and currency must equal the plan. The gateway then authorizes payment and hands the order to the merchant (status confirmed, order_id), or hands the user to the merchant page (status handed_off, continue_url). Confirming again returns the same result. Scope: checkout.",
      inputSchema: ConfirmInput,
      outputSchema: CheckoutOut,
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    ({ checkout_id, consent_granted, consent_statement, amount, currency: cur, payment_handler, payment_token, detail: d }) =>
      run('confirm_checkout', async () => {
        const c = await getCheckoutAs(deps.db, checkout_id, me);
        // The signed token is the checkout's own, read here rather than copied through the model.
        const token = await getMatchToken(deps.db, c.match_token_id, me);
        const view = await settledCheckout(
          deps.db,
          await confirmCheckout(
            {
              db: deps.db,
              temporal: deps.temporal,
              keys: { signingKey: deps.signingKeys.matchToken, issuer: deps.config.publicBaseUrl },
              keyEncryptionKey: deps.config.KEY_ENCRYPTION_KEY,
              defaultPaymentHandler: deps.config.PROTOCOL_PAYMENT_HANDLER,
              surface: 'mcp',
            },
            checkout_id,
            {
              consent: { granted: consent_granted, statement: consent_statement, granted_at: new Date().toISOString() },
              match_token: token.signed_token,
              proposal_id: c.proposal_id,
              amount,
              currency: cur,
              ...paymentCredentialOf(payment_handler, payment_token),
            },
            me,
          ),
        );
        return summarize(view, d);
      }),
  );

  server.registerTool(
    'get_checkout',
    {
      title: 'Read a checkout',
      description:
        "A checkout (as GET /v1/agentic-checkout/{id}): status, total, the merchant order id or continue_url, or why it failed (the merchant's reason, whether the payment was voided), and next_steps: what can be done now (try again with the token, another proposal of the session, or a new search). Scope: checkout.",
      inputSchema: GetCheckoutInput,
      outputSchema: CheckoutOut,
      annotations: { readOnlyHint: true },
    },
    ({ checkout_id, detail: d }) =>
      run('get_checkout', async () => summarize(checkoutView(await getCheckoutAs(deps.db, checkout_id, me)), d)),
  );

  server.registerTool(
    'run_commerce_runtime',
    {
      title: 'Run the commerce agent loop',
      description:
        'Run the auditable agent loop in one call (as POST /v1/commerce-runtime): read the intent, ask merchant agents (the catalog fills in), rank, and accept the best for a match token. Waits up to wait_s (default 20 s); returns the chosen proposal and match token, or status running with runtime_id for get_runtime. Then plan_checkout. Scope: runtime.',
      inputSchema: RuntimeInput,
      outputSchema: RuntimeOut,
    },
    ({ intent, intent_tags, budget_max, region: reg, max_merchant_queries, entry_agent_id, wait_s, detail: d }) =>
      run('run_commerce_runtime', async () => {
        const body = restShaped(RuntimeCreateBody, {
          intent: {
            raw_query: intent,
            ...(intent_tags ? { intent_tags } : {}),
            ...(budget_max !== undefined ? { budget_range: { max: budget_max } } : {}),
            ...(reg ? { region: reg } : {}),
            source_channel: 'mcp',
          },
          ...(max_merchant_queries ? { commerce_budget: { max_merchant_queries } } : {}),
          ...(entry_agent_id ? { runtime_session: { entry_agent_id } } : {}),
        });
        const out = await startRuntime(deps, body, { developerId, keyId: principal.keyId }, Math.round((wait_s ?? DEFAULT_WAIT_S) * 1000));
        const rt = out.status === 'completed' ? out.runtime : await loadRuntime(deps.db, out.runtimeId, me);
        return runtimeSummary(rt, d);
      }),
  );

  server.registerTool(
    'get_runtime',
    {
      title: 'Read a commerce runtime',
      description:
        'A commerce runtime (as GET /v1/commerce-runtime/{id}): its stage, steps, chosen proposal and match token. Scope: runtime.',
      inputSchema: GetRuntimeInput,
      outputSchema: RuntimeOut,
      annotations: { readOnlyHint: true },
    },
    ({ runtime_id, detail: d }) => run('get_runtime', async () => runtimeSummary(await loadRuntime(deps.db, runtime_id, me), d)),
  );

  server.registerPrompt(
    'buy_flow',
    {
      title: 'Find and buy a product for the user',
      description:
        'Walks the model through the journey: recommend → choose → accept_match → plan_checkout → ask the user → confirm_checkout → get_checkout.',
      argsSchema: {
        request: z.string().max(500).optional().describe('What the user wants, in their words, e.g. "trail running shoes under $120".'),
        buyer_agent_id: z.string().max(200).optional().describe('Your agent id for plan_checkout (default: mcp-shopper).'),
      },
    },
    ({ request, buyer_agent_id }) => ({
      description: 'Find and buy a product with the gateway tools.',
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: buyFlowText(request ?? 'the product the user describes', buyer_agent_id ?? 'mcp-shopper') },
        },
      ],
    }),
  );

  return server;
}

/** The buy_flow prompt: the journey as steps, with the rules a model must keep (consent, links verbatim). */
export function buyFlowText(request: string, buyerAgentId: string): string {
  return [
    `Find and buy for the user: ${request}.`,
    '',
    `1. Call recommend with intent set to the user's words. Show the picks (title, price, why) and pass each buy_url verbatim. items[0] is the best; "the best one" means items[0].`,
    '   For offers from merchant agents instead, call run_commerce_runtime with the same words (it asks merchants, ranks and returns a match token), or create_intent → list_proposals → create_match.',
    '2. Call accept_match with the match_session_id (no proposal_id: the best; or the proposal_id the user chose). Keep match_token_id.',
    `3. Call plan_checkout with match_token_id and buyer_agent_id "${buyerAgentId}" (add the shipping address when you have it). Nothing is paid yet.`,
    '4. Show the user the plan: product, total and currency, and ask: "Shall I buy it?" Wait for an explicit yes. Never assume it.',
    "5. Only after the yes, call confirm_checkout with checkout_id, consent_granted true, consent_statement quoting what the user agreed to, and the plan's total as amount and its currency.",
    "6. Tell the user the outcome: status confirmed → the merchant order_id; status handed_off → give continue_url verbatim, where they finish on the merchant page; failed → the reason (the merchant's own words when it refused), that nothing is charged when the payment was voided, and next_step. get_checkout reads it again at any time.",
    'Every answer has a next_step: follow it when unsure.',
  ].join('\n');
}
