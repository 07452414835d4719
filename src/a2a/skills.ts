import { z } from 'zod';
import { AppError } from '../errors';
import { hasScope, type ApiKeyPrincipal } from '../console/api-keys';
import type { ApiKeyScope } from '../schemas/console';
import { RecommendQuery } from '../schemas/recommend';
import { IntentCreateBody } from '../schemas/intents';
import { AcceptBody, MatchCreateBody, MatchRenderQuery, MatchSessionParams } from '../schemas/match';
import { CheckoutConfirmBody, CheckoutCreateBody, CheckoutIdParams } from '../schemas/checkout';
import { recommend, recommendDeps } from '../recommend/recommend';
import { intentView } from '../matching/intents';
import { createIntentAndStartSurge } from '../dispatch/client';
import { createMatchSession, matchSessionView } from '../matching/match-sessions';
import { renderMatchSessionBody } from '../matching/session-render';
import { acceptMatch, matchTokenView } from '../matching/match-tokens';
import { checkoutView, getCheckoutAs, type CheckoutView } from '../checkout/checkouts';
import { checkoutNextSteps } from '../checkout/next-steps';
import { apiCaller } from '../tenancy';
import { confirmCheckout, createCheckout, settledCheckout } from '../checkout/client';
import type { A2aCaller, A2aDeps } from './deps';

/**
 * The card's skills other than the runtime (`recommend`, `intent_matching`, `agentic_checkout`),
 * each a data part `{operation: <skill id>, input: {...}}`. Every one calls the same domain function
 * as its REST route, with the same validation, error codes and API-key scope, as the caller's
 * developer. They answer at once, so the answer is an A2A Message (no task to poll) whose data part
 * is the REST response body (a checkout's next steps name the A2A skills instead of REST paths).
 */

type Op = (deps: A2aDeps, input: unknown, caller: A2aCaller) => Promise<Record<string, unknown>>;

export class SkillInputError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly fields: string[],
  ) {
    super(message);
  }
}

function parse<T extends z.ZodType>(schema: T, input: unknown, where: string): z.infer<T> {
  const r = schema.safeParse(input ?? {});
  if (r.success) return r.data;
  const fields = [...new Set(r.error.issues.map((i) => [where, ...i.path].join('.')))];
  const first = r.error.issues[0];
  throw new SkillInputError(
    'invalid_payload',
    `Invalid ${[where, ...(first?.path ?? [])].join('.')}: ${first?.message ?? 'invalid value'}`,
    fields,
  );
}

function requireScope(caller: A2aCaller, scope: ApiKeyScope): void {
  if (caller.principal && !hasScope(caller.principal as ApiKeyPrincipal, scope)) {
    throw new AppError(403, 'insufficient_scope', `This API key lacks the '${scope}' scope.`);
  }
}

const withAction = <A extends string, S extends z.ZodRawShape>(action: A, shape: S) => z.object({ action: z.literal(action), ...shape });

const IntentMatchingInput = z.discriminatedUnion('action', [
  withAction('create_intent', { intent: IntentCreateBody }),
  withAction('create_match', MatchCreateBody.shape),
  withAction('get_match_session', { match_session_id: MatchSessionParams.shape.matchSessionId, limit: MatchRenderQuery.shape.limit }),
  withAction('accept_match', { match_session_id: MatchSessionParams.shape.matchSessionId, ...AcceptBody.shape }),
]);

const CheckoutInput = z.discriminatedUnion('action', [
  withAction('plan', CheckoutCreateBody.shape),
  withAction('confirm', { checkout_id: CheckoutIdParams.shape.checkoutId, ...CheckoutConfirmBody.shape }),
  withAction('get', { checkout_id: CheckoutIdParams.shape.checkoutId }),
]);

const recommendOp: Op = async (deps, input, caller) => {
  requireScope(caller, 'recommend');
  const q = parse(RecommendQuery, input, 'input');
  return { ...(await recommend(recommendDeps(deps), q, { developerId: caller.developerId })) };
};

const intentMatchingOp: Op = async (deps, input, caller) => {
  const q = parse(IntentMatchingInput, input, 'input');
  const { db, config } = deps;
  switch (q.action) {
    case 'create_intent':
      requireScope(caller, 'intents');
      return { intent: intentView(await createIntentAndStartSurge(deps, q.intent, { developerId: caller.developerId })) };
    case 'create_match': {
      requireScope(caller, 'match');
      const { action: _a, ...body } = q;
      const session = await createMatchSession(db, body, {
        ttlSeconds: config.MATCH_SESSION_TTL_S,
        caller: apiCaller(caller.developerId),
        publicBaseUrl: config.publicBaseUrl,
        cardFacts: deps.cardFacts,
      });
      return { match_session: matchSessionView(session) };
    }
    case 'get_match_session':
      requireScope(caller, 'match');
      return { ...(await renderMatchSessionBody(db, q.match_session_id, q.limit, apiCaller(caller.developerId), deps.frozenTops)) };
    case 'accept_match': {
      requireScope(caller, 'match');
      const { action: _a, match_session_id, ...body } = q;
      const token = await acceptMatch(
        { db, signingKey: deps.signingKeys.matchToken, issuer: config.publicBaseUrl, ttlSeconds: config.MATCH_TOKEN_TTL_S },
        match_session_id,
        body,
        { requestId: caller.requestId ?? 'a2a', keyId: caller.keyId },
        apiCaller(caller.developerId),
      );
      return { match_token: matchTokenView(token, apiCaller(caller.developerId)) };
    }
  }
  throw new SkillInputError('invalid_payload', 'Unknown action.', ['input.action']);
};

/** The REST body of a checkout: the checkout and its next steps, worded for A2A (src/checkout/next-steps.ts). */
const withNextSteps = async (deps: A2aDeps, checkout: CheckoutView) => ({
  checkout,
  next_steps: await checkoutNextSteps(deps.db, checkout, 'a2a'),
});

const checkoutOp: Op = async (deps, input, caller) => {
  requireScope(caller, 'checkout');
  const q = parse(CheckoutInput, input, 'input');
  switch (q.action) {
    case 'plan': {
      const { action: _a, ...body } = q;
      const planned = await createCheckout(deps.temporal, deps.db, body, apiCaller(caller.developerId), undefined, undefined, 'a2a');
      return withNextSteps(deps, await settledCheckout(deps.db, planned));
    }
    case 'confirm': {
      const { action: _a, checkout_id, ...body } = q;
      const keys = { signingKey: deps.signingKeys.matchToken, issuer: deps.config.publicBaseUrl };
      const confirmed = await confirmCheckout(
        {
          db: deps.db,
          temporal: deps.temporal,
          keys,
          keyEncryptionKey: deps.config.KEY_ENCRYPTION_KEY,
          defaultPaymentHandler: deps.config.PROTOCOL_PAYMENT_HANDLER,
          surface: 'a2a',
        },
        checkout_id,
        body,
        apiCaller(caller.developerId),
      );
      return withNextSteps(deps, await settledCheckout(deps.db, confirmed));
    }
    case 'get':
      return withNextSteps(deps, checkoutView(await getCheckoutAs(deps.db, q.checkout_id, apiCaller(caller.developerId))));
  }
  throw new SkillInputError('invalid_payload', 'Unknown action.', ['input.action']);
};

export const SKILL_OPERATIONS: Record<string, Op> = {
  recommend: recommendOp,
  intent_matching: intentMatchingOp,
  agentic_checkout: checkoutOp,
};
