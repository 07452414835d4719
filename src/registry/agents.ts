import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { CommerceAgentRow } from '../db/schema';
import { AppError } from '../errors';
import type { AgentKind, AgentRegisterInput } from '../schemas/agents';
import { AgentRegisterBody } from '../schemas/agents';
import { parseAgentCard } from './agent-card';
import { assertEndpointField } from './endpoint-field';
import type { RegistryDeps } from './merchants';
import { endpointPolicy } from './endpoint-safety';
import { boundedRequest, OutboundError } from '../outbound/http';
import { AGENT_TOKEN_PREFIX, assertRegistrationToken, mintRegistrationToken } from './secrets';
import { checkRegistrantToken, deactivateRegistrant, heartbeatRegistrant, type RegistrantKind } from './registrant';
import { iso } from '../time';

/** The general commerce-agent registry (docs/REGISTRIES.md) and A2A Agent Card import. */

export const agentNotFound = (id: string) => new AppError(404, 'agent_not_found', `No commerce agent '${id}' is registered.`);
const AGENTS: RegistrantKind<CommerceAgentRow> = { table: 'commerce_agents', idColumn: 'agent_id', notFound: agentNotFound };

export function agentView(a: CommerceAgentRow) {
  return {
    agent_id: a.agent_id,
    agent_type: a.agent_type as AgentKind,
    endpoint: a.endpoint,
    agent_card_url: a.agent_card_url,
    protocols: a.protocols,
    auth_methods: a.auth_methods,
    capabilities: a.capabilities,
    capability_profile: a.capability_profile,
    regions: a.regions,
    categories: a.categories,
    metadata: a.metadata,
    status: a.status,
    registered_at: iso(a.registered_at),
    last_seen_at: iso(a.last_seen_at),
    deactivated_at: iso(a.deactivated_at),
  };
}

export interface AgentRegistration {
  created: boolean;
  registrationToken: string;
  agent: CommerceAgentRow;
}

function columnsFrom(input: AgentRegisterInput, agentCardUrl?: string) {
  const json = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v));
  const cols = {
    agent_type: input.agent_type,
    endpoint: input.endpoint,
    agent_card_url: agentCardUrl,
    protocols: json(input.protocols),
    auth_methods: json(input.auth_methods),
    capabilities: json(input.capabilities),
    capability_profile: json(input.capability_profile),
    regions: json(input.regions),
    categories: json(input.categories),
    metadata: json(input.metadata),
  };
  return Object.fromEntries(Object.entries(cols).filter(([, v]) => v !== undefined)) as Partial<typeof cols>;
}

/**
 * Creates the agent or, when agent_id exists, updates it: updates need that agent's X-Agent-Token
 * and reactivate a deactivated agent; the token stays the same unless rotated.
 */
export async function registerAgent(
  deps: RegistryDeps,
  input: AgentRegisterInput,
  caller: { presentedToken?: string; keyId?: string; agentCardUrl?: string; endpointField?: string; createdByRequest?: string },
): Promise<AgentRegistration> {
  await assertEndpointField(caller.endpointField ?? 'endpoint', input.endpoint, deps.allowPrivateEndpoints);
  const cols = columnsFrom(input, caller.agentCardUrl);
  return deps.db.transaction().execute(async (trx) => {
    const { token, hash } = mintRegistrationToken(AGENT_TOKEN_PREFIX);
    const inserted = await trx
      .insertInto('commerce_agents')
      .values({
        agent_id: input.agent_id,
        ...cols,
        agent_type: input.agent_type,
        endpoint: input.endpoint,
        token_hash: hash,
        registered_by_key_id: caller.keyId ?? null,
        created_by_request: caller.createdByRequest ?? null,
      })
      .onConflict((oc) => oc.column('agent_id').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { created: true, registrationToken: token, agent: inserted };

    const existing = await trx
      .selectFrom('commerce_agents')
      .select(['token_hash', 'created_by_request'])
      .where('agent_id', '=', input.agent_id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (caller.createdByRequest && existing.created_by_request === caller.createdByRequest) {
      // The same keyed request, retried after the API died before answering: a fresh token for the agent its first run created.
      const agent = await trx
        .updateTable('commerce_agents')
        .set({ token_hash: hash, updated_at: sql`now()` })
        .where('agent_id', '=', input.agent_id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { created: true, registrationToken: token, agent };
    }
    assertRegistrationToken('x-agent-token', caller.presentedToken, existing.token_hash, input.agent_id);
    const newToken = input.rotate_registration_token ? mintRegistrationToken(AGENT_TOKEN_PREFIX) : null;
    const agent = await trx
      .updateTable('commerce_agents')
      .set({ ...cols, ...(newToken ? { token_hash: newToken.hash } : {}), status: 'active', deactivated_at: null, updated_at: sql`now()` })
      .where('agent_id', '=', input.agent_id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { created: false, registrationToken: newToken?.token ?? caller.presentedToken!, agent };
  });
}

export async function getAgent(db: Db, agentId: string): Promise<CommerceAgentRow> {
  const a = await db.selectFrom('commerce_agents').selectAll().where('agent_id', '=', agentId).executeTakeFirst();
  if (!a) throw agentNotFound(agentId);
  return a;
}

export async function listAgents(db: Db, filter: { agent_type?: string; status?: string }): Promise<CommerceAgentRow[]> {
  let q = db.selectFrom('commerce_agents').selectAll().orderBy('registered_at', 'asc').orderBy('agent_id', 'asc');
  if (filter.agent_type) q = q.where('agent_type', '=', filter.agent_type);
  if (filter.status) q = q.where('status', '=', filter.status as 'active' | 'inactive');
  return q.execute();
}

export const checkAgentToken = (db: Db, agentId: string, token: string) => checkRegistrantToken(db, AGENTS, agentId, token);
export const heartbeatAgent = (db: Db, agentId: string) => heartbeatRegistrant(db, AGENTS, agentId);
/** Idempotent: a second deactivation keeps the first deactivated_at. */
export const deactivateAgent = (db: Db, agentId: string) => deactivateRegistrant(db, AGENTS, agentId);

export const AGENT_CARD_MAX_BYTES = 256 * 1024;
export const AGENT_CARD_MAX_REDIRECTS = 3;

const fetchFailed = (reason: string, message: string, extra: Record<string, unknown> = {}) =>
  new AppError(502, 'agent_card_fetch_failed', message, { reason, ...extra });

/** GETs a card URL within the bounds; unsafe URLs (any hop) are the caller's 400, the rest a 502. */
export async function fetchAgentCard(url: string, opts: { timeoutMs: number; allowPrivate: boolean }): Promise<unknown> {
  await assertEndpointField('agent_card_url', url, opts.allowPrivate);
  let res;
  try {
    res = await boundedRequest(url, {
      timeoutMs: opts.timeoutMs,
      maxBytes: AGENT_CARD_MAX_BYTES,
      maxRedirects: AGENT_CARD_MAX_REDIRECTS,
      policy: endpointPolicy(opts.allowPrivate),
      // Ask for the v1.0 card; servers with only v0.3 ignore the header.
      headers: { accept: 'application/json', 'a2a-version': '1.0' },
    });
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    if (err.reason === 'unsafe_endpoint') {
      throw new AppError(400, 'invalid_endpoint', `Invalid agent_card_url: ${err.message}.`, { fields: ['agent_card_url'] });
    }
    throw fetchFailed(err.reason, `Could not fetch the Agent Card: ${err.message}.`);
  }
  if (res.status < 200 || res.status >= 300) {
    throw fetchFailed('bad_status', `The Agent Card URL answered HTTP ${res.status}.`, { upstream_status: res.status });
  }
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    throw fetchFailed('invalid_json', 'The Agent Card URL did not return JSON.');
  }
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);

export interface ImportCardInput {
  agent_card?: Record<string, unknown>;
  agent_card_url?: string;
  agent_id?: string;
  agent_type?: AgentKind;
  regions?: string[];
  categories?: string[];
  metadata?: Record<string, unknown>;
}

/** Maps a card into a registration: skills → capabilities, interfaces → endpoint, the rest → profile.a2a. */
export async function importAgentCard(
  deps: RegistryDeps & { cardFetchTimeoutMs: number },
  input: ImportCardInput,
  caller: { presentedToken?: string; keyId?: string },
): Promise<AgentRegistration> {
  const hasInline = input.agent_card !== undefined;
  const hasUrl = input.agent_card_url !== undefined;
  if (hasInline === hasUrl) {
    throw new AppError(400, hasInline ? 'invalid_payload' : 'missing_fields', 'Send exactly one of agent_card or agent_card_url.', {
      fields: ['agent_card', 'agent_card_url'],
    });
  }
  const raw = hasInline
    ? input.agent_card
    : await fetchAgentCard(input.agent_card_url!, { timeoutMs: deps.cardFetchTimeoutMs, allowPrivate: deps.allowPrivateEndpoints });
  const card = parseAgentCard(raw);
  const agentType = input.agent_type ?? card.suggestedKind ?? 'service_core';
  const host = new URL(card.endpoint).hostname;
  const mapped = AgentRegisterBody.safeParse({
    agent_id: input.agent_id ?? `a2a-${slug(`${host}-${card.profile.name}`)}`,
    agent_type: agentType,
    endpoint: card.endpoint,
    protocols: card.protocols,
    auth_methods: card.authMethods,
    capabilities: card.skillIds.slice(0, 100),
    capability_profile: { a2a: card.profile },
    regions: input.regions,
    categories: input.categories,
    metadata: input.metadata,
  });
  if (!mapped.success) {
    const first = mapped.error.issues[0]!;
    throw new AppError(400, 'invalid_agent_card', `The Agent Card cannot be registered: ${first.path.join('.')}: ${first.message}`, {
      fields: [...new Set(mapped.error.issues.map((i) => i.path.join('.')))],
    });
  }
  return registerAgent(deps, mapped.data, { ...caller, agentCardUrl: input.agent_card_url, endpointField: card.endpointField });
}
