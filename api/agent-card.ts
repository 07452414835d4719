import { CONTRACT_VERSION } from './openapi';
import { A2A_V1_PROTOCOL_VERSION } from '../src/a2a/v1';

/**
 * The gateway's A2A Agent Card, in the A2A 1.0 shape (ProtoJSON of `AgentCard`): the official 1.x
 * clients (`@a2a-js/sdk` `ClientFactory`, Python `a2a-sdk` `ClientFactory`) read it with their
 * defaults and pick the one interface it declares, JSON-RPC 1.0 at `/a2a`. Only what is served is
 * declared: no REST binding, no streaming, no push notifications, no extended card. Skills name the
 * operations agents call (docs/A2A.md); every call authenticates with an API key as a bearer token.
 */
export function agentCard(baseUrl: string) {
  return {
    name: 'Commerce Intent-Matching Gateway',
    description:
      'A shopping agent: tell it what to find ("find me trail running shoes under $120 and buy the best one"); it reads the request, asks merchant agents and the catalog for offers, ranks them, and buys the best one once you consent. Also turns shopping intents into ranked product cards, matches merchant proposals to intents and mints signed match tokens that authorize checkout.',
    supportedInterfaces: [{ url: `${baseUrl}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: A2A_V1_PROTOCOL_VERSION }],
    provider: { organization: 'Commerce Intent-Matching Gateway', url: baseUrl },
    version: CONTRACT_VERSION,
    documentationUrl: `${baseUrl}/docs/A2A.md`,
    capabilities: { streaming: false, pushNotifications: false, extendedAgentCard: false },
    securitySchemes: {
      apiKey: {
        httpAuthSecurityScheme: {
          scheme: 'bearer',
          description: 'API key from the developer console (scope runtime, plus the scope of the skill called).',
        },
      },
    },
    securityRequirements: [{ schemes: { apiKey: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: [
      {
        id: 'run_commerce_runtime',
        name: 'Find and buy',
        description:
          'Say what to find, in words (a text part): the request is read like recommend reads it (keywords, category, budget, region) and runs the commerce runtime: merchant agents and the catalog are asked, offers ranked, the best one gets a signed match token. If the words only ask to find, the task waits in input-required naming the product, price and merchant found: reply "buy it" on the same task to plan its checkout. If the words ask to buy, the task waits in input-required with the checkout plan; reply on the same task (taskId) with "yes, buy it" or a data part {"consent": {"granted": true, "statement": "..."}} and it completes with the order receipt (or the continue_url of the merchant page). Structured form: a data part {"operation": "run_commerce_runtime", "input": <POST /v1/commerce-runtime body>}. The task id is the runtime id; poll GetTask while it is working. Tasks are compact; metadata {"detail": "full"} returns the whole runtime and checkout documents. Scope: runtime (and checkout to buy).',
        tags: ['commerce', 'agent-loop', 'checkout'],
        examples: [
          'Find me trail running shoes under $120 and buy the best one',
          '{"operation": "run_commerce_runtime", "input": {"intent": {"raw_query": "wireless headphones for my commute"}}}',
        ],
        inputModes: ['text/plain', 'application/json'],
        outputModes: ['application/json', 'text/plain'],
      },
      {
        id: 'recommend',
        name: 'Recommend products',
        description:
          'Natural-language shopping intent to ranked Product Card Documents with attributed buy links (as GET /v1/recommend). Data part {"operation": "recommend", "input": {"intent": "...", "limit": 3, "region": "US"}}; the answer is a message whose data part is the recommend response. Scope: recommend.',
        tags: ['commerce', 'recommendation'],
        examples: ['{"operation": "recommend", "input": {"intent": "running shoes under $80 for a beginner"}}'],
        inputModes: ['application/json'],
        outputModes: ['application/json'],
      },
      {
        id: 'intent_matching',
        name: 'Intent matching',
        description:
          'Create an intent, rank its merchant proposals in a match session and accept one for a signed match token. Data part {"operation": "intent_matching", "input": {"action": "create_intent" | "create_match" | "get_match_session" | "accept_match", ...}} with the body of POST /v1/intents (as "intent"), POST /v1/match, GET /v1/match/{id} or POST /v1/match/{id}/accept. Scopes: intents, match.',
        tags: ['commerce', 'intents', 'proposals', 'match-token'],
        examples: ['{"operation": "intent_matching", "input": {"action": "accept_match", "match_session_id": "ms_..."}}'],
        inputModes: ['application/json'],
        outputModes: ['application/json'],
      },
      {
        id: 'agentic_checkout',
        name: 'Agentic checkout',
        description:
          'Plan a checkout from a match token, then confirm it with explicit buyer consent. Data part {"operation": "agentic_checkout", "input": {"action": "plan" | "confirm" | "get", ...}} with the body of POST /v1/agentic-checkout, or checkout_id plus the body of its confirm. Scope: checkout.',
        tags: ['commerce', 'checkout', 'payments'],
        examples: ['{"operation": "agentic_checkout", "input": {"action": "get", "checkout_id": "chk_..."}}'],
        inputModes: ['application/json'],
        outputModes: ['application/json'],
      },
    ],
  };
}
