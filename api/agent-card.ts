import { CONTRACT_VERSION } from './openapi';

/**
 * The gateway's A2A Agent Card (protocol 0.3 field set). Skills name the operations agents call;
 * every call authenticates with an API key as a bearer token.
 */
export function agentCard(baseUrl: string) {
  return {
    protocolVersion: '0.3.0',
    name: 'Commerce Intent-Matching Gateway',
    description:
      'Turns shopping intents into ranked product cards, matches merchant proposals to intents, mints signed match tokens that authorize payment and checkout, and runs an auditable commerce agent loop.',
    url: `${baseUrl}/a2a`,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [{ url: `${baseUrl}/a2a`, transport: 'JSONRPC' }],
    version: CONTRACT_VERSION,
    provider: { organization: 'Commerce Intent-Matching Gateway', url: baseUrl },
    documentationUrl: `${baseUrl}/docs/INTENT_MATCHING_PROTOCOL.md`,
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false },
    securitySchemes: {
      apiKey: { type: 'http', scheme: 'bearer', description: 'API key from the developer console.' },
    },
    security: [{ apiKey: [] }],
    defaultInputModes: ['application/json', 'text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 'recommend',
        name: 'Recommend products',
        description: 'Natural-language shopping intent to ranked Product Card Documents with attributed buy links.',
        tags: ['commerce', 'recommendation'],
        examples: ['running shoes under $80 for a beginner'],
      },
      {
        id: 'intent_matching',
        name: 'Intent matching',
        description: 'Create an intent, collect merchant proposals, rank them in a match session and accept one for a signed match token.',
        tags: ['commerce', 'intents', 'proposals', 'match-token'],
      },
      {
        id: 'run_commerce_runtime',
        name: 'Run commerce runtime',
        description:
          'One call that runs an auditable agent loop under budgets and returns the linked intent, proposal, match session and match token. Over A2A: message/send on the card url with a data part {"operation": "run_commerce_runtime", "input": <POST /v1/commerce-runtime body>}; the answer is a Task (id = runtime id) whose artifact holds {runtime}; poll tasks/get while it is working. API key scope: runtime (docs/A2A.md).',
        tags: ['commerce', 'agent-loop'],
        inputModes: ['application/json'],
        outputModes: ['application/json'],
        examples: ['{"operation": "run_commerce_runtime", "input": {"intent": {"raw_query": "wireless headphones for my commute"}}}'],
      },
      {
        id: 'agentic_checkout',
        name: 'Agentic checkout',
        description: 'Create a checkout plan from a match token, then confirm it with explicit buyer consent.',
        tags: ['commerce', 'checkout', 'payments'],
      },
    ],
  };
}
