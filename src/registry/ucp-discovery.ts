import type { Db } from '../db/connect';
import { AppError } from '../errors';
import { discoverBusiness, UcpDiscoveryError } from '../protocols/ucp/discovery';

/**
 * A UCP business's profile as a registration reads it: the discovery summary to store, or the 4xx
 * the registration answers (the registrant can fix each: a URL that does not serve a profile, a
 * profile that is not one, a version the gateway does not speak).
 */
export function ucpDiscoverer(deps: { allowPrivateEndpoints: boolean; timeoutMs: number }) {
  return async (baseUrl: string): Promise<Record<string, unknown>> => {
    try {
      return { ...(await discoverBusiness(deps, baseUrl)) };
    } catch (err) {
      if (!(err instanceof UcpDiscoveryError)) throw err;
      const code = err.code === 'version_unsupported' ? 'ucp_version_unsupported' : 'ucp_discovery_failed';
      throw new AppError(422, code, `UCP discovery at ${baseUrl}/.well-known/ucp failed: ${err.message}.`, { fields: ['agent_endpoint'] });
    }
  };
}

/**
 * Reads a business's profile again and keeps it on its record (a session about to open on a stale
 * profile, an event signed with a key the stored one lacks). Null when it cannot be read now: the
 * stored profile stays.
 */
export async function rereadUcpProfile(
  db: Db,
  discover: (baseUrl: string) => Promise<Record<string, unknown>>,
  m: { merchant_id: string; agent_endpoint: string },
): Promise<Record<string, unknown> | null> {
  const profile = await discover(m.agent_endpoint).catch(() => null);
  if (!profile) return null;
  await db
    .updateTable('merchants')
    .set({ protocol_profile: JSON.stringify(profile), protocol_profile_fetched_at: new Date(), updated_at: new Date() })
    .where('merchant_id', '=', m.merchant_id)
    .execute();
  return profile;
}
