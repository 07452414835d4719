import { sql, type Insertable, type Selectable, type Transaction } from 'kysely';
import type { Db } from '../db/connect';
import type { Database } from '../db/schema';
import type { ProposalState, ProposalsTable } from '../db/schema-matching';
import { AppError } from '../errors';
import { newId } from '../ids';
import { productView, type ProductRow } from '../catalog/products';
import { describeProductRef, productRefMember, resolveProductRefs, type ProductRefInput } from '../catalog/merchant-products';
import { loadCreatorEvidence } from '../experience/facts';
import type { CreatorEvidenceT } from '../schemas/experience';
import { proposalExperienceOf } from '../experience/proposal-experience';
import { getMerchant } from '../registry/merchants';
import { assessReadiness } from '../registry/readiness';
import { PRODUCT_REF_MEMBERS, type ProposalCreateInput } from '../schemas/proposals';
import { getIntent, merchantWasSent, type IntentRow } from './intents';
import { subscribesTo } from '../dispatch/subscribers';
import type { MerchantRow } from '../db/schema';
import { mayRead, SYSTEM, type Caller } from '../tenancy';
import { fromMinorUnits, toMinorUnits } from '../money';
import { assertTransition } from './proposal-state';
import { computeTrustScore, recentHealth } from './trust-score';
import { iso } from '../time';

export type ProposalRow = Selectable<ProposalsTable>;

export const proposalNotFound = (id: string) => new AppError(404, 'proposal_not_found', `No proposal '${id}'.`);

export function proposalView(p: ProposalRow) {
  return {
    proposal_id: p.proposal_id,
    merchant_agent_id: p.merchant_agent_id,
    intent_id: p.intent_id,
    product_id: p.product_id,
    offer_title: p.offer_title,
    price: fromMinorUnits(p.price_cents, p.currency),
    currency: p.currency,
    inventory_status: p.inventory_status,
    shipping_commitment: p.shipping_commitment,
    commission_plan: p.commission_plan,
    service_terms: p.service_terms,
    evidence: p.evidence,
    valid_until: iso(p.valid_until),
    proposal_score_inputs: p.proposal_score_inputs,
    product_snapshot: p.product_snapshot,
    metadata: p.metadata,
    provenance: p.provenance,
    status: p.status,
    created_at: iso(p.created_at),
    updated_at: iso(p.updated_at),
    asset_refs: p.asset_refs,
    trust_score: p.trust_score,
    attribution_chain: p.attribution_chain,
    proposal_state: p.proposal_state,
    workflow: p.workflow,
    experience_preview: p.experience_preview,
    experience_card: p.experience_card,
  };
}
export type ProposalView = ReturnType<typeof proposalView>;

export function inventoryFromStock(qty: number): ProposalRow['inventory_status'] {
  if (qty <= 0) return 'out_of_stock';
  return qty < 10 ? 'low_stock' : 'in_stock';
}

/**
 * The product as the shopper was shown it, frozen into the proposal; with the variant the merchant
 * named its offer by (variant_id), when it named one.
 */
export function productSnapshot(product: ProductRow, now: Date, variantId?: string) {
  return {
    ...productView(product),
    catalog_price: fromMinorUnits(product.price_cents, product.currency),
    catalog_currency: product.currency,
    captured_at: now.toISOString(),
    ...(variantId !== undefined ? { variant_id: variantId } : {}),
  };
}

/**
 * The one member of a proposal that names its product (docs/MATCHING.md, "Naming the product"):
 * none is a 400 missing_fields, more than one a 400 invalid_payload (the request schema refuses
 * that already; a caller inside the gateway is held to it here).
 */
export function productRefOf(input: ProductRefInput): ProductRefInput {
  const given = PRODUCT_REF_MEMBERS.filter((k) => input[k] !== undefined);
  if (given.length !== 1) {
    throw new AppError(
      400,
      given.length ? 'invalid_payload' : 'missing_fields',
      'Name the product by exactly one of product_id, external_id or variant_id.',
      { fields: given.length ? given : ['product_id'] },
    );
  }
  const [member] = given;
  return { [member!]: input[member!] };
}

/** 404 for a product a proposal names: a gateway id not in the catalog, or an own id not among the merchant's products. */
export function proposalProductNotFound(ref: ProductRefInput, merchantId: string): AppError {
  const where = ref.product_id !== undefined ? 'the catalog' : `the products of merchant ${JSON.stringify(merchantId)}`;
  return new AppError(404, 'product_not_found', `No ${describeProductRef(ref)} in ${where}.`, { fields: [productRefMember(ref)] });
}

/** What a new proposal is checked and built from (read once for several proposals by a batch). */
export interface ProposalFacts {
  intent: IntentRow;
  merchant: MerchantRow;
  product: ProductRow;
  /** The merchant's recent health probes (recentHealth). */
  healthProbes: { healthy: number; total: number };
  /** The product's creator videos (loadCreatorEvidence). */
  evidence: CreatorEvidenceT[];
}

/**
 * Why a proposal cannot be stored (before anything is): no product or two named, an unknown product
 * (`product`: what the ref resolved to, resolveProductRefs), a deactivated merchant, a past valid_until.
 */
export function checkProposal(input: ProposalCreateInput, merchant: MerchantRow, product: ProductRow | undefined): asserts product {
  const ref = productRefOf(input);
  if (!product) throw proposalProductNotFound(ref, merchant.merchant_id);
  if (merchant.status !== 'active')
    throw new AppError(409, 'merchant_inactive', `Merchant ${merchant.merchant_id} is deactivated; register again to submit proposals.`);
  if (input.valid_until && Date.parse(input.valid_until) <= Date.now()) {
    throw new AppError(400, 'invalid_payload', 'Invalid valid_until: it is already in the past.', { fields: ['valid_until'] });
  }
}

/**
 * The row of a new proposal (checked by checkProposal): the product frozen into `product_snapshot`
 * and the trust score computed now, so later catalog changes cannot rewrite what the shopper was shown.
 */
export function newProposalRow(input: ProposalCreateInput, f: ProposalFacts, proposalId: string, now: Date): Insertable<ProposalsTable> {
  const { intent, merchant, product } = f;
  const priceCents = toMinorUnits(input.price, input.currency);
  const experience = proposalExperienceOf(
    intent,
    product,
    {
      proposal_id: proposalId,
      price_cents: priceCents,
      currency: input.currency,
      merchant_preview: input.experience_preview,
      merchant_card: input.experience_card,
    },
    f.evidence,
  );
  const trust = computeTrustScore({
    readinessScore: assessReadiness(merchant).score,
    healthProbes: f.healthProbes,
    evidence: input.evidence ?? [],
    priceCents,
    catalogPriceCents: product.price_cents,
    catalogCurrency: product.currency,
    sameCurrency: product.currency === input.currency,
  });
  const json = (v: unknown) => JSON.stringify(v);
  return {
    proposal_id: proposalId,
    merchant_agent_id: merchant.merchant_id,
    intent_id: intent.intent_id,
    product_id: product.product_id,
    offer_title: input.offer_title,
    price_cents: priceCents,
    currency: input.currency,
    inventory_status: input.inventory_status ?? inventoryFromStock(product.inventory_qty),
    shipping_commitment: json(input.shipping_commitment ?? {}),
    commission_plan: json(input.commission_plan ?? {}),
    service_terms: json(input.service_terms ?? {}),
    evidence: json(input.evidence ?? []),
    valid_until: input.valid_until ?? null,
    proposal_score_inputs: json(input.proposal_score_inputs ?? {}),
    product_snapshot: json(productSnapshot(product, now, input.variant_id)),
    metadata: json(input.metadata ?? {}),
    provenance: input.provenance ?? 'merchant_agent',
    proposal_state: input.proposal_state,
    trust_score: json(trust),
    asset_refs: json(input.asset_refs ?? []),
    attribution_chain: json(input.attribution_chain ?? []),
    workflow: json(input.workflow ?? {}),
    experience_preview: json(experience.experience_preview),
    experience_card: json(experience.experience_card),
    created_at: now,
    updated_at: now,
  };
}

/** Each new proposal's first transition (none → its state), recorded with it. */
export const submittedTransitions = (rows: Insertable<ProposalsTable>[], now: Date) =>
  rows.map((p) => ({ proposal_id: p.proposal_id, from_state: 'none', to_state: p.proposal_state!, reason: 'submitted', at: now }));

/**
 * A merchant's answer to an intent. The caller's X-Merchant-Token has already been checked against
 * `merchant_agent_id`. The product is frozen into `product_snapshot` and the trust score computed
 * now, so later catalog changes cannot rewrite what the shopper was shown.
 */
/** `proposalId`: fixed by the request's Idempotency-Key claim, so a retry after a crash answers the stored proposal. */
export async function submitProposal(
  db: Db,
  input: ProposalCreateInput,
  caller: Caller,
  proposalId: string = newId('prop'),
): Promise<ProposalRow> {
  const ref = productRefOf(input);
  const [intent, merchant, [product]] = await Promise.all([
    // Read as the gateway: whether this merchant may answer it is decided below, with the same 404.
    getIntent(db, input.intent_id, SYSTEM),
    getMerchant(db, input.merchant_agent_id),
    // The merchant's own ids name only its own products.
    resolveProductRefs(db, [{ merchantId: input.merchant_agent_id, ref }]),
  ]);
  if (caller.kind === 'api' && !(await mayPropose(db, intent, merchant))) throw intentNotFoundFor(input.intent_id);
  checkProposal(input, merchant, product);
  const stored = await db
    .selectFrom('proposals')
    .selectAll()
    .where('proposal_id', '=', proposalId)
    .where('intent_id', '=', intent.intent_id)
    .executeTakeFirst();
  if (stored) return stored;
  const [healthProbes, evidence] = await Promise.all([
    recentHealth(db, merchant.merchant_id),
    loadCreatorEvidence(db, [product.product_id]),
  ]);
  const now = new Date();
  const row = newProposalRow(
    input,
    { intent, merchant, product, healthProbes, evidence: evidence.get(product.product_id) ?? [] },
    proposalId,
    now,
  );
  // The proposal and its first transition in one statement (the transition's foreign key is checked
  // at the statement's end, when the proposal is there).
  return db
    .with('transition', (q) => q.insertInto('proposal_transitions').values(submittedTransitions([row], now)))
    .insertInto('proposals')
    .values(row)
    .returningAll()
    .executeTakeFirstOrThrow();
}

const intentNotFoundFor = (id: string) => new AppError(404, 'intent_not_found', `No intent '${id}'.`);

/**
 * Who may answer an intent through its registration token (docs/TENANCY.md): a merchant the intent
 * was dispatched to (or that already proposed to it); one whose subscription the intent meets, so a
 * merchant that was slow to be reached (or joined after the fan-out) may still answer an open intent;
 * and a merchant registered by the intent's own developer (a developer running both sides sees the
 * intent anyway). Any other merchant gets 404 intent_not_found, as for an intent that does not exist.
 */
export async function mayPropose(db: Db, intent: IntentRow, merchant: MerchantRow): Promise<boolean> {
  if (subscribesTo(merchant, intent)) return true;
  if (intent.developer_id !== null && merchant.registered_by_key_id) {
    const key = await db
      .selectFrom('api_keys')
      .select('developer_id')
      .where('key_id', '=', merchant.registered_by_key_id)
      .executeTakeFirst();
    if (key?.developer_id === intent.developer_id) return true;
  }
  return merchantWasSent(db, intent.intent_id, merchant.merchant_id);
}

/** Past its valid_until and not yet settled or expired, by the database's clock: due to be stored `expired`. */
const proposalDue = sql<boolean>`valid_until <= now() and proposal_state not in ('settled', 'expired')`;

/**
 * Expiry is applied where proposals are read and by a periodic sweep; both use this one statement,
 * which records a transition for each proposal it expires.
 */
export async function expireDueProposals(
  db: Db | Transaction<Database>,
  scope: { intentId?: string; proposalIds?: string[] } = {},
): Promise<number> {
  const intentFilter = scope.intentId ? sql`and intent_id = ${scope.intentId}` : sql``;
  const idFilter = scope.proposalIds ? sql`and proposal_id = any(${scope.proposalIds})` : sql``;
  const { rows } = await sql<{ proposal_id: string }>`
    with due as (
      select proposal_id, proposal_state as from_state from proposals
      where ${proposalDue} ${intentFilter} ${idFilter}
      for update skip locked
    ), expired as (
      update proposals p set proposal_state = 'expired', status = 'expired', updated_at = now()
      from due where p.proposal_id = due.proposal_id
      returning p.proposal_id, due.from_state
    )
    insert into proposal_transitions (proposal_id, from_state, to_state, reason, at)
    select proposal_id, from_state, 'expired', 'valid_until passed', now() from expired
    returning proposal_id`.execute(db);
  return rows.length;
}

/**
 * A proposal the caller may read: the keys of the intent's developer, and the merchant that
 * submitted it (by its registration token). Anyone else: 404 proposal_not_found.
 */
export async function getProposal(db: Db, proposalId: string, caller: Caller): Promise<ProposalRow> {
  const read = () =>
    db
      .selectFrom('proposals as p')
      .innerJoin('intents as i', 'i.intent_id', 'p.intent_id')
      .selectAll('p')
      .select('i.developer_id as intent_developer_id')
      // The rule expireDueProposals goes by (the joined intents have no such columns).
      .select(proposalDue.as('due'))
      .where('p.proposal_id', '=', proposalId)
      .executeTakeFirst();
  let p = await read();
  // Lazy expiry on read: a proposal past its valid_until is expired (and read again) before it is shown.
  if (p?.due && (await expireDueProposals(db, { proposalIds: [proposalId] }))) p = await read();
  if (!p) throw proposalNotFound(proposalId);
  const { intent_developer_id, due: _due, ...row } = p;
  const ownMerchant = caller.kind === 'api' && caller.merchantId !== undefined && caller.merchantId === row.merchant_agent_id;
  if (!ownMerchant && !mayRead(caller, intent_developer_id)) throw proposalNotFound(proposalId);
  return row;
}

/**
 * The proposals of an intent the caller may read: all of them for the intent's developer, only its
 * own for a merchant (another merchant's offer is not its business).
 */
export async function listProposals(db: Db, intentId: string, includeExpired: boolean, caller: Caller): Promise<ProposalRow[]> {
  const intent = await getIntent(db, intentId, caller);
  await expireDueProposals(db, { intentId });
  let q = db.selectFrom('proposals').selectAll().where('intent_id', '=', intentId);
  if (caller.kind === 'api' && !mayRead(caller, intent.developer_id)) q = q.where('merchant_agent_id', '=', caller.merchantId ?? '');
  if (!includeExpired) q = q.where('proposal_state', '!=', 'expired');
  return q.orderBy('created_at', 'asc').orderBy('proposal_id', 'asc').execute();
}

/** Moves a proposal along the lifecycle (409 when the move is not allowed) and records it. */
export async function transitionProposal(
  trx: Transaction<Database>,
  proposalId: string,
  to: ProposalState,
  reason: string,
  /** Checked on the locked row before the move (e.g. a caller's own 409 for a state it refuses). */
  guard?: (p: ProposalRow) => void,
  /** The row as the caller already read it FOR UPDATE in this transaction: not read again. */
  locked?: ProposalRow,
): Promise<ProposalRow> {
  const p = locked ?? (await trx.selectFrom('proposals').selectAll().where('proposal_id', '=', proposalId).forUpdate().executeTakeFirst());
  if (!p) throw proposalNotFound(proposalId);
  guard?.(p);
  if (p.proposal_state === to) return p;
  assertTransition(proposalId, p.proposal_state, to);
  const now = new Date();
  // The move and its transition in one statement.
  return trx
    .with('transition', (q) =>
      q.insertInto('proposal_transitions').values({ proposal_id: proposalId, from_state: p.proposal_state, to_state: to, reason, at: now }),
    )
    .updateTable('proposals')
    .set({ proposal_state: to, ...(to === 'expired' ? { status: 'expired' as const } : {}), updated_at: now })
    .where('proposal_id', '=', proposalId)
    .returningAll()
    .executeTakeFirstOrThrow();
}
