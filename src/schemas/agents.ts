import { z } from 'zod';
import { isoDateTime, text, token } from './common';
import { ATTRIBUTION_MODES, CHECKOUT_MODES, PROPOSAL_CONTRACTS, rotateToken } from './merchants';

/**
 * Commerce agents (general registry, docs/REGISTRIES.md). `capability_profile` is grouped by agent kind: the
 * member named after the agent's own `agent_type` is validated with that kind's schema below
 * (member lists in docs/REGISTRIES.md); `a2a` holds what an Agent Card import mapped.
 */

export const AGENT_KINDS = ['merchant', 'payment', 'logistics', 'creator', 'demand', 'service_core'] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

const tag = text(64);
const tags = (max = 50) => z.array(tag).max(max);
const currency = z.string().regex(/^[A-Z]{3}$/, 'ISO 4217 code, e.g. USD');
const freeObject = z.record(z.string(), z.unknown());

export const KIND_PROFILES = {
  merchant: z
    .object({
      catalog_categories: tags(100).optional(),
      checkout_modes: z.array(z.enum(CHECKOUT_MODES)).optional(),
      proposal_contract: z.enum(PROPOSAL_CONTRACTS).optional(),
      attribution_mode: z.enum(ATTRIBUTION_MODES).optional(),
      currencies: z.array(currency).max(50).optional(),
    })
    .strict(),
  payment: z
    .object({
      payment_methods: tags().optional(),
      currencies: z.array(currency).max(50).optional(),
      supports_mandates: z.boolean().optional(),
      max_amount: z.number().positive().optional(),
      settlement_days: z.number().int().min(0).max(90).optional(),
    })
    .strict(),
  logistics: z
    .object({
      carriers: tags().optional(),
      service_levels: tags().optional(),
      ship_to_regions: tags(250).optional(),
      tracking: z.boolean().optional(),
      max_weight_kg: z.number().positive().optional(),
    })
    .strict(),
  creator: z
    .object({
      channels: tags().optional(),
      content_formats: tags().optional(),
      audience_regions: tags(250).optional(),
      followers: z.number().int().min(0).optional(),
    })
    .strict(),
  demand: z
    .object({
      intent_sources: tags().optional(),
      buyer_consent_modes: tags().optional(),
      max_budget: z.number().positive().optional(),
      currencies: z.array(currency).max(50).optional(),
    })
    .strict(),
  service_core: z
    .object({
      services: tags().optional(),
      sla_seconds: z.number().int().min(1).max(86_400).optional(),
    })
    .strict(),
} satisfies Record<AgentKind, z.ZodType>;

export const A2AProfile = z
  .object({
    card_version: z.enum(['0.3', '1.0']),
    name: z.string(),
    description: z.string(),
    version: z.string(),
    provider: z.object({ organization: z.string().optional(), url: z.string().optional() }).nullable(),
    documentation_url: z.string().nullable(),
    skills: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string(),
        tags: z.array(z.string()),
        examples: z.array(z.string()),
        input_modes: z.array(z.string()),
        output_modes: z.array(z.string()),
      }),
    ),
    interfaces: z.array(z.object({ url: z.string(), protocol_binding: z.string(), protocol_version: z.string().nullable() })),
    security_schemes: z.array(z.object({ name: z.string(), type: z.string(), description: z.string().nullable() })),
    extensions: z.array(
      z.object({ uri: z.string(), required: z.boolean(), description: z.string().nullable(), params: freeObject.nullable() }),
    ),
    ap2_roles: z.array(z.string()),
    default_input_modes: z.array(z.string()),
    default_output_modes: z.array(z.string()),
    streaming: z.boolean(),
    push_notifications: z.boolean(),
  })
  .meta({ id: 'A2AProfile', description: 'What an A2A Agent Card import mapped into the capability profile.' });
export type A2AProfile = z.infer<typeof A2AProfile>;

const CapabilityProfile = z.record(z.string(), z.unknown()).meta({
  description: 'Grouped by agent kind: `{"<agent_type>": {...}}` validated per kind; `a2a` holds an imported Agent Card.',
});

export const AgentRegisterBody = z
  .strictObject({
    agent_id: token('[A-Za-z0-9._:-]{1,128}', 'letters, digits and . _ : - only, 1 to 128 of them'),
    agent_type: z.enum(AGENT_KINDS),
    endpoint: z.string().trim().max(2048).url(),
    protocols: tags(20).optional(),
    auth_methods: tags(20).optional(),
    capabilities: tags(100).optional(),
    capability_profile: CapabilityProfile.optional(),
    regions: tags(250).optional(),
    categories: tags(100).optional(),
    metadata: freeObject.optional(),
    rotate_registration_token: rotateToken,
  })
  .superRefine((body, ctx) => {
    for (const [key, value] of Object.entries(body.capability_profile ?? {})) {
      if (key === 'a2a') {
        const res = A2AProfile.safeParse(value);
        for (const issue of res.error?.issues ?? [])
          ctx.addIssue({ code: 'custom', message: issue.message, path: ['capability_profile', key, ...issue.path] });
        continue;
      }
      if (key !== body.agent_type) {
        ctx.addIssue({
          code: 'custom',
          path: ['capability_profile', key],
          message: (AGENT_KINDS as readonly string[]).includes(key)
            ? `a ${key} profile does not belong to an agent of type ${body.agent_type}`
            : `unknown profile group; use "${body.agent_type}" (or "a2a")`,
        });
        continue;
      }
      const res = KIND_PROFILES[body.agent_type].safeParse(value);
      for (const issue of res.error?.issues ?? [])
        ctx.addIssue({ code: 'custom', message: issue.message, path: ['capability_profile', key, ...issue.path] });
    }
  })
  .meta({ id: 'AgentRegisterRequest' });
export type AgentRegisterInput = z.infer<typeof AgentRegisterBody>;

export const AgentImportCardBody = z
  .strictObject({
    agent_card: z.record(z.string(), z.unknown()).optional().meta({ description: 'The Agent Card JSON (A2A v0.3 or v1.0 field set).' }),
    agent_card_url: z
      .string()
      .trim()
      .max(2048)
      .url()
      .optional()
      .meta({ description: 'HTTPS URL the card is fetched from, e.g. https://agent.example/.well-known/agent-card.json.' }),
    agent_id: AgentRegisterBody.shape.agent_id.optional().meta({ description: 'Defaults to a slug of the card host and name.' }),
    agent_type: z.enum(AGENT_KINDS).optional().meta({ description: 'Defaults to the AP2 role in the card, else service_core.' }),
    regions: tags(250).optional(),
    categories: tags(100).optional(),
    metadata: freeObject.optional(),
  })
  .meta({
    id: 'AgentImportCardRequest',
    // Exactly one of the two (src/registry/agents.ts answers neither with missing_fields, both with
    // invalid_payload): a rule across members, which the document states as a oneOf of `required`.
    oneOf: [{ required: ['agent_card'] }, { required: ['agent_card_url'] }],
  });

export const AgentIdParams = z.object({ agentId: z.string().min(1).max(128) });
export const AgentListQuery = z.object({
  agent_type: z.enum(AGENT_KINDS).optional(),
  status: z.enum(['active', 'inactive']).optional(),
});

export const Agent = z
  .object({
    agent_id: z.string(),
    agent_type: z.enum(AGENT_KINDS),
    endpoint: z.string(),
    agent_card_url: z.string().nullable(),
    protocols: z.array(z.string()),
    auth_methods: z.array(z.string()),
    capabilities: z.array(z.string()),
    capability_profile: CapabilityProfile,
    regions: z.array(z.string()),
    categories: z.array(z.string()),
    metadata: freeObject,
    status: z.enum(['active', 'inactive']),
    registered_at: isoDateTime.nullable(),
    last_seen_at: isoDateTime.nullable(),
    deactivated_at: isoDateTime.nullable(),
  })
  .meta({ id: 'CommerceAgent' });

export const AgentRegisterResponse = z
  .object({
    status: z.string(),
    created: z.boolean(),
    agent_id: z.string(),
    registration_token: z.string().meta({ description: 'Secret for X-Agent-Token. Returned only by register and import-card.' }),
    agent: Agent,
  })
  .meta({ id: 'AgentRegisterResponse' });

export const AgentList = z.object({ count: z.number().int(), agents: z.array(Agent) }).meta({ id: 'AgentList' });
export const AgentEnvelope = z.object({ agent: Agent }).meta({ id: 'AgentEnvelope' });
export const AgentStatusEnvelope = z.object({ status: z.string(), agent: Agent }).meta({ id: 'AgentStatusEnvelope' });
