/**
 * Who is asking for a record, and whether they may see it or act on it (docs/TENANCY.md).
 *
 * Every record an API caller creates carries the caller's developer as `developer_id`. Domain
 * functions that read or act on such a record take a `Caller` and answer a record the caller may not
 * see exactly as they answer a record that does not exist (the resource's own not-found), so neither
 * existence nor ids leak across tenants. Because the check lives in `src/`, REST, MCP and A2A get it
 * alike.
 */

/** A request made with an API key (or keyless on the portal demo channel: developerId null). */
export interface ApiCaller {
  readonly kind: 'api';
  /** The developer of the calling API key; null for a keyless portal demo call. */
  readonly developerId: string | null;
  /** The merchant whose registration token (X-Merchant-Token) the request proved, when it sent one. */
  readonly merchantId?: string;
}

/** The gateway itself: workflows, activities, sweeps and operator (supply key) reads. */
export interface SystemCaller {
  readonly kind: 'system';
}

export type Caller = ApiCaller | SystemCaller;

export const SYSTEM: SystemCaller = Object.freeze({ kind: 'system' as const });

export function apiCaller(developerId: string | null | undefined, merchantId?: string): ApiCaller {
  return merchantId ? { kind: 'api', developerId: developerId ?? null, merchantId } : { kind: 'api', developerId: developerId ?? null };
}

/** The caller's developer when it has one (what new records are stamped with). */
export const ownerOf = (caller: Caller): string | null => (caller.kind === 'api' ? caller.developerId : null);

/** The caller owns a record with this `developer_id` (the gateway owns everything). */
export function owns(caller: Caller, owner: string | null | undefined): boolean {
  if (caller.kind === 'system') return true;
  return owner != null && caller.developerId !== null && owner === caller.developerId;
}

/**
 * The caller may read a record with this `developer_id`: its owner, the gateway, and anyone for a
 * record without an owner (made by a keyless portal demo call, or before ownership was recorded):
 * those are public by id and read-only.
 */
export function mayRead(caller: Caller, owner: string | null | undefined): boolean {
  return owner == null || owns(caller, owner);
}

/**
 * The caller may act on (accept, pay, check out, sign a mandate for, record events about) a record
 * with this `developer_id`: its owner only. A record without an owner is read-only for every API key.
 */
export const mayAct = owns;

/**
 * The caller may read what was sent to or measured for merchant `merchantId` (its deliveries and their
 * attempts, its SLA): operators (the gateway), and the merchant itself through its registration token.
 */
export function seesMerchant(caller: Caller, merchantId: string): boolean {
  return caller.kind === 'system' || caller.merchantId === merchantId;
}
