import { z } from 'zod';
import { AppError } from '../errors';
import type { A2AProfile, AgentKind } from '../schemas/agents';

/**
 * A2A Agent Card reading. Two field sets are accepted: v0.3 (top-level `url`, `protocolVersion`,
 * `preferredTransport`, `additionalInterfaces`) and v1.0 (`supportedInterfaces` with a
 * `protocolBinding` and `protocolVersion` each). Unknown members are ignored, as the A2A spec asks
 * of readers; missing or mistyped required ones are a 400 naming the member.
 */

const str = z.string();
const nonEmpty = z.string().min(1);

const Skill = z.object({
  id: nonEmpty,
  name: nonEmpty,
  description: str,
  tags: z.array(str),
  examples: z.array(str).optional(),
  inputModes: z.array(str).optional(),
  outputModes: z.array(str).optional(),
});

const Extension = z.object({
  uri: nonEmpty,
  description: str.nullish(),
  required: z.boolean().nullish(),
  params: z.record(str, z.unknown()).nullish(),
});

const common = {
  name: nonEmpty,
  description: str,
  version: nonEmpty,
  provider: z.object({ organization: str.optional(), url: str.optional() }).nullish(),
  documentationUrl: str.nullish(),
  capabilities: z.object({
    streaming: z.boolean().nullish(),
    pushNotifications: z.boolean().nullish(),
    extensions: z.array(Extension).nullish(),
  }),
  securitySchemes: z.record(str, z.record(str, z.unknown())).nullish(),
  defaultInputModes: z.array(str),
  defaultOutputModes: z.array(str),
  skills: z.array(Skill),
};

const CardV03 = z.object({
  ...common,
  protocolVersion: z.string().regex(/^0\./, 'a v0.x protocol version'),
  url: z.string().url(),
  preferredTransport: str.nullish(),
  additionalInterfaces: z.array(z.object({ url: z.string().url(), transport: nonEmpty })).nullish(),
});

const CardV10 = z.object({
  ...common,
  supportedInterfaces: z
    .array(z.object({ url: z.string().url(), protocolBinding: nonEmpty, protocolVersion: nonEmpty, tenant: str.nullish() }))
    .min(1),
});

/** The AP2 extension declares the agent's payment roles; they decide its kind when none is given. */
const AP2_ROLE_KINDS: Record<string, AgentKind> = {
  merchant: 'merchant',
  shopper: 'demand',
  'credentials-provider': 'payment',
  'payment-processor': 'payment',
};
const isAp2Extension = (uri: string) => /\/ap2(\/|$)|agentic-commerce\/ap2|ap2-protocol/i.test(uri);

/** v0.3 `type`, v1.0 JSON `{apiKeySecurityScheme: {...}}`, or the JS SDK's `{scheme: {$case}}`. */
function schemeType(scheme: Record<string, unknown>): { type: string; description: string | null } {
  const names: Record<string, string> = {
    apiKeySecurityScheme: 'apiKey',
    httpAuthSecurityScheme: 'http',
    oauth2SecurityScheme: 'oauth2',
    openIdConnectSecurityScheme: 'openIdConnect',
    mtlsSecurityScheme: 'mutualTLS',
  };
  const describe = (o: unknown) =>
    (typeof (o as { description?: unknown })?.description === 'string' && (o as { description: string }).description) || null;
  if (typeof scheme.type === 'string') return { type: scheme.type, description: describe(scheme) };
  const inner = scheme.scheme as { $case?: string; value?: unknown } | undefined;
  if (inner?.$case && names[inner.$case]) return { type: names[inner.$case]!, description: describe(inner.value) };
  const key = Object.keys(scheme).find((k) => names[k]);
  return key ? { type: names[key]!, description: describe(scheme[key]) } : { type: 'unknown', description: null };
}

function invalidCard(error: z.ZodError, where: string): AppError {
  const fields = [...new Set(error.issues.map((i) => [where, ...i.path].join('.')))];
  const first = error.issues[0]!;
  return new AppError(400, 'invalid_agent_card', `Invalid Agent Card: ${[where, ...first.path].join('.')}: ${first.message}`, { fields });
}

export interface ParsedCard {
  profile: A2AProfile;
  /** The preferred interface: the agent's endpoint in the registry. */
  endpointField: string;
  endpoint: string;
  skillIds: string[];
  authMethods: string[];
  protocols: string[];
  suggestedKind: AgentKind | null;
}

/** Reads a card (`where` names it in errors: `agent_card`). */
export function parseAgentCard(raw: unknown, where = 'agent_card'): ParsedCard {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new AppError(400, 'invalid_agent_card', 'Invalid Agent Card: it must be a JSON object.', { fields: [where] });
  }
  const isV03 = 'protocolVersion' in raw || !('supportedInterfaces' in raw);
  const parsed = (isV03 ? CardV03 : CardV10).safeParse(raw);
  if (!parsed.success) throw invalidCard(parsed.error, where);
  const card = parsed.data;

  const interfaces =
    'supportedInterfaces' in card
      ? card.supportedInterfaces.map((i) => ({ url: i.url, protocol_binding: i.protocolBinding, protocol_version: i.protocolVersion }))
      : [
          { url: card.url, protocol_binding: card.preferredTransport ?? 'JSONRPC', protocol_version: card.protocolVersion },
          ...(card.additionalInterfaces ?? [])
            .filter((i) => i.url !== card.url)
            .map((i) => ({ url: i.url, protocol_binding: i.transport, protocol_version: null })),
        ];
  const extensions = (card.capabilities.extensions ?? []).map((e) => ({
    uri: e.uri,
    required: e.required ?? false,
    description: e.description ?? null,
    params: e.params ?? null,
  }));
  const ap2Roles = extensions
    .filter((e) => isAp2Extension(e.uri))
    .flatMap((e) =>
      Array.isArray(e.params?.roles) ? (e.params.roles as unknown[]).filter((r): r is string => typeof r === 'string') : [],
    );
  const securitySchemes = Object.entries(card.securitySchemes ?? {}).map(([name, s]) => ({ name, ...schemeType(s) }));

  const profile: A2AProfile = {
    card_version: isV03 ? '0.3' : '1.0',
    name: card.name,
    description: card.description,
    version: card.version,
    provider: card.provider ?? null,
    documentation_url: card.documentationUrl ?? null,
    skills: card.skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: s.tags,
      examples: s.examples ?? [],
      input_modes: s.inputModes?.length ? s.inputModes : card.defaultInputModes,
      output_modes: s.outputModes?.length ? s.outputModes : card.defaultOutputModes,
    })),
    interfaces,
    security_schemes: securitySchemes,
    extensions,
    ap2_roles: [...new Set(ap2Roles)],
    default_input_modes: card.defaultInputModes,
    default_output_modes: card.defaultOutputModes,
    streaming: card.capabilities.streaming ?? false,
    push_notifications: card.capabilities.pushNotifications ?? false,
  };
  const suggestedKind = profile.ap2_roles.map((r) => AP2_ROLE_KINDS[r]).find((k) => k !== undefined) ?? null;
  return {
    profile,
    endpointField: isV03 ? `${where}.url` : `${where}.supportedInterfaces.0.url`,
    endpoint: interfaces[0]!.url,
    skillIds: profile.skills.map((s) => s.id),
    authMethods: [...new Set(securitySchemes.map((s) => s.type))],
    protocols: ['a2a', ...(profile.ap2_roles.length ? ['ap2'] : [])],
    suggestedKind,
  };
}
