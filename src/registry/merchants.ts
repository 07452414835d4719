import { sql } from 'kysely';
import type { Db } from '../db/connect';
import type { MerchantRow } from '../db/schema';
import { AppError } from '../errors';
import type { MerchantRegisterInput } from '../schemas/merchants';
import { assertEndpointField } from './endpoint-field';
import { checkRegistrantToken, deactivateRegistrant, heartbeatRegistrant, type RegistrantKind } from './registrant';
import {
  assertRegistrationToken,
  MERCHANT_TOKEN_PREFIX,
  mintRegistrationToken,
  newWebhookSecret,
  openWebhookSecret,
  sealCredential,
  sealWebhookSecret,
} from './secrets';
import { merchantProtocolOf, sellsOnlyByRedirect } from './merchant-protocol';
import { iso } from '../time';
import { sha256Hex } from '../crypto/tokens';

/** The legacy merchant-agent registry (docs/REGISTRIES.md). */

export interface RegistryDeps {
  db: Db;
  allowPrivateEndpoints: boolean;
  keyEncryptionKey?: Buffer;
  /**
   * Reads a UCP business's profile at registration (src/protocols/ucp/discovery.ts, wired by the API):
   * the summary to store, or an AppError (422) the registration answers with.
   */
  discoverUcp?: (baseUrl: string) => Promise<Record<string, unknown>>;
}

export const merchantNotFound = (id: string) => new AppError(404, 'merchant_not_found', `No merchant agent '${id}' is registered.`);
const MERCHANTS: RegistrantKind<MerchantRow> = { table: 'merchants', idColumn: 'merchant_id', notFound: merchantNotFound };

export function merchantView(m: MerchantRow) {
  return {
    merchant_id: m.merchant_id,
    agent_endpoint: m.agent_endpoint,
    subscription_tags: m.subscription_tags,
    capabilities: m.capabilities,
    regions: m.regions,
    category_tags: m.category_tags,
    inventory_scope: m.inventory_scope,
    protocol_version: merchantProtocolOf(m),
    protocol_profile: m.protocol_profile,
    protocol_profile_fetched_at: iso(m.protocol_profile_fetched_at),
    has_seller_credential: m.seller_credential_sealed !== null,
    sells_only_by_redirect: sellsOnlyByRedirect(m),
    a2a_capabilities: m.a2a_capabilities,
    metadata: m.metadata,
    status: m.status,
    registered_at: iso(m.registered_at),
    last_seen_at: iso(m.last_seen_at),
    deactivated_at: iso(m.deactivated_at),
    workflow_context: m.workflow_context,
    trust_evidence_policy: m.trust_evidence_policy,
    agent_ready_profile: m.agent_ready_profile,
  };
}
export type MerchantView = ReturnType<typeof merchantView>;

/** Columns a register body sets; absent optional members leave the stored value alone on update. */
function columnsFrom(input: MerchantRegisterInput) {
  const json = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v));
  const cols = {
    agent_endpoint: input.agent_endpoint,
    subscription_tags: input.subscription_tags,
    capabilities: input.capabilities,
    regions: input.regions,
    category_tags: input.category_tags,
    inventory_scope: json(input.inventory_scope),
    protocol_version: input.protocol_version,
    a2a_capabilities: json(input.a2a_capabilities),
    metadata: json(input.metadata),
    workflow_context: json(input.workflow_context),
    trust_evidence_policy: json(input.trust_evidence_policy),
    agent_ready_profile: json(input.agent_ready_profile),
  };
  return Object.fromEntries(Object.entries(cols).filter(([, v]) => v !== undefined)) as Partial<typeof cols>;
}

export interface MerchantRegistration {
  created: boolean;
  registrationToken: string;
  webhookSecret: string;
  merchant: MerchantRow;
}

/**
 * Creates the merchant, or updates it when the merchant_id exists: an update must carry that
 * merchant's X-Merchant-Token (otherwise anyone with an API key could re-point its endpoint), and
 * it reactivates a deactivated merchant. The registration token stays the same unless rotated.
 */
export async function registerMerchant(
  deps: RegistryDeps,
  input: MerchantRegisterInput,
  caller: { presentedToken?: string; keyId?: string; createdByRequest?: string },
): Promise<MerchantRegistration> {
  await assertEndpointField('agent_endpoint', input.agent_endpoint, deps.allowPrivateEndpoints);
  const cols = { ...columnsFrom(input), ...(await protocolColumns(deps, input)) };
  return deps.db.transaction().execute(async (trx) => {
    const { token, hash } = mintRegistrationToken(MERCHANT_TOKEN_PREFIX);
    const newSecret = newWebhookSecret();
    const inserted = await trx
      .insertInto('merchants')
      .values({
        merchant_id: input.merchant_id,
        ...cols,
        agent_endpoint: input.agent_endpoint,
        token_hash: hash,
        webhook_secret_sealed: sealWebhookSecret(deps.keyEncryptionKey, input.merchant_id, newSecret),
        registered_by_key_id: caller.keyId ?? null,
        created_by_request: caller.createdByRequest ?? null,
      })
      .onConflict((oc) => oc.column('merchant_id').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { created: true, registrationToken: token, webhookSecret: newSecret, merchant: inserted };

    const existing = await trx
      .selectFrom('merchants')
      .selectAll()
      .where('merchant_id', '=', input.merchant_id)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (caller.createdByRequest && existing.created_by_request === caller.createdByRequest) {
      // The same keyed request, retried after the API died before answering: the caller never saw the
      // first credentials, so it gets fresh ones for the merchant its first run created.
      const merchant = await trx
        .updateTable('merchants')
        .set({
          token_hash: hash,
          webhook_secret_sealed: sealWebhookSecret(deps.keyEncryptionKey, input.merchant_id, newSecret),
          updated_at: sql`now()`,
        })
        .where('merchant_id', '=', input.merchant_id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { created: true, registrationToken: token, webhookSecret: newSecret, merchant };
    }
    assertRegistrationToken('x-merchant-token', caller.presentedToken, existing.token_hash, input.merchant_id);
    // The webhook secret is kept unless asked to rotate, or unless it can no longer be read (sealed
    // under a KEY_ENCRYPTION_KEY that has since changed): then re-registering is the recovery.
    const newToken = input.rotate_registration_token ? mintRegistrationToken(MERCHANT_TOKEN_PREFIX) : null;
    let webhookSecret = input.rotate_webhook_secret ? null : readableSecret(deps, existing);
    const rotated = webhookSecret === null;
    webhookSecret ??= newWebhookSecret();
    const merchant = await trx
      .updateTable('merchants')
      .set({
        ...cols,
        ...(newToken ? { token_hash: newToken.hash } : {}),
        ...(rotated ? { webhook_secret_sealed: sealWebhookSecret(deps.keyEncryptionKey, input.merchant_id, webhookSecret) } : {}),
        status: 'active',
        deactivated_at: null,
        updated_at: sql`now()`,
      })
      .where('merchant_id', '=', input.merchant_id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { created: false, registrationToken: newToken?.token ?? caller.presentedToken!, webhookSecret, merchant };
  });
}

/**
 * What the merchant's protocol adds to its row: a UCP business's discovered profile (read now, so a
 * business the gateway cannot buy from is refused at registration), an ACP seller's sealed credential.
 * A registration that names no protocol changes none of it.
 */
async function protocolColumns(deps: RegistryDeps, input: MerchantRegisterInput) {
  if (input.protocol_version !== undefined && input.protocol_version !== 'acp' && input.seller_credential !== undefined) {
    throw new AppError(400, 'invalid_request', 'seller_credential is for protocol_version "acp" only.', { fields: ['seller_credential'] });
  }
  const sealed = input.seller_credential
    ? { seller_credential_sealed: sealCredential(deps.keyEncryptionKey, input.merchant_id, input.seller_credential) }
    : {};
  if (input.protocol_version === 'acp' && !input.seller_credential) {
    const stored = await deps.db
      .selectFrom('merchants')
      .select('seller_credential_sealed')
      .where('merchant_id', '=', input.merchant_id)
      .executeTakeFirst();
    if (!stored?.seller_credential_sealed) {
      throw new AppError(400, 'invalid_request', 'An ACP seller needs seller_credential: the credential it issued to agents.', {
        fields: ['seller_credential'],
      });
    }
  }
  if (input.protocol_version === 'ucp') {
    if (!deps.discoverUcp) throw new AppError(503, 'ucp_unavailable', 'This deployment cannot read UCP profiles.');
    const profile = await deps.discoverUcp(input.agent_endpoint);
    return { protocol_profile: JSON.stringify(profile), protocol_profile_fetched_at: new Date(), seller_credential_sealed: null };
  }
  if (input.protocol_version !== undefined)
    return {
      protocol_profile: null,
      protocol_profile_fetched_at: null,
      ...(input.protocol_version === 'gateway' ? { seller_credential_sealed: null } : sealed),
    };
  return sealed;
}

function readableSecret(deps: RegistryDeps, m: MerchantRow): string | null {
  try {
    return openWebhookSecret(deps.keyEncryptionKey, m.merchant_id, m.webhook_secret_sealed);
  } catch {
    return null;
  }
}

export async function findMerchant(db: Db, merchantId: string): Promise<MerchantRow | undefined> {
  return db.selectFrom('merchants').selectAll().where('merchant_id', '=', merchantId).executeTakeFirst();
}

export async function getMerchant(db: Db, merchantId: string): Promise<MerchantRow> {
  const m = await findMerchant(db, merchantId);
  if (!m) throw merchantNotFound(merchantId);
  return m;
}

/** For the X-Merchant-Token middleware: is `token` the token of this very merchant? */
export const checkMerchantToken = (db: Db, merchantId: string, token: string) => checkRegistrantToken(db, MERCHANTS, merchantId, token);

/** The merchant a registration token belongs to (tokens are stored as their SHA-256), if any. */
export async function findMerchantByToken(db: Db, token: string): Promise<string | undefined> {
  const m = await db.selectFrom('merchants').select('merchant_id').where('token_hash', '=', sha256Hex(token)).executeTakeFirst();
  return m?.merchant_id;
}

export const heartbeatMerchant = (db: Db, merchantId: string) => heartbeatRegistrant(db, MERCHANTS, merchantId);

/** Idempotent: a second deactivation keeps the first deactivated_at. */
export const deactivateMerchant = (db: Db, merchantId: string) => deactivateRegistrant(db, MERCHANTS, merchantId);
