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
