import { AppError } from '../errors';
import { assertSafeEndpoint, endpointPolicy, UnsafeEndpointError } from './endpoint-safety';

/** Endpoint safety as a request error: 400 `invalid_endpoint` naming the field. */
export async function assertEndpointField(field: string, url: string, allowPrivate: boolean): Promise<void> {
  try {
    await assertSafeEndpoint(url, endpointPolicy(allowPrivate));
  } catch (err) {
    if (!(err instanceof UnsafeEndpointError)) throw err;
    throw new AppError(400, 'invalid_endpoint', `Invalid ${field}: ${err.message}.`, { fields: [field] });
  }
}
