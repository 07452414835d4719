import { apiCaller, type Caller } from '../src/tenancy';
import type { AppContext } from './context';

/**
 * The caller of a request as the domain functions of `src/` see it (docs/TENANCY.md): the developer
 * of its API key (none for a keyless portal demo call) and the merchant whose X-Merchant-Token it
 * proved, if any.
 */
export function callerOf(ctx: AppContext): Caller {
  return apiCaller(ctx.state.apiKey?.developerId ?? null, ctx.state.merchantId);
}
