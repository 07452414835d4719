import * as S from '../../src/schemas/mandates';
import { signIntentMandate } from '../../src/mandates/sign';
import { requestResourceId } from '../middleware/idempotency';
import { auth, type RouteRegistry } from './registry';

const TAG = 'Intent mandates';

/** POST /v1/intent-mandates/sign (docs/MANDATES.md). */
export function mandateRoutes(r: RouteRegistry): void {
  r.add({
    method: 'post',
    path: '/v1/intent-mandates/sign',
    tag: TAG,
    summary: 'Sign an intent mandate',
    description:
      "Signs product_id, amount_limit, currency and expiry with the integration's RSA key: RS256 over the RFC 8785 canonical JSON of the payload. Returns the payload, its canonical text, a bare RSA-SHA256 signature (openssl-verifiable) and a compact JWS; the public key is in /.well-known/jwks.json. The body is validated first; 503 when signing is not enabled for the integration.",
    auth: auth.apiKey('payments'),
    body: S.IntentMandateSignBody,
    bodyRequired: true,
    invalidCode: 'invalid_body',
    responses: { 201: { description: 'The signed mandate (stored for audit).', schema: S.IntentMandateSignResponse } },
    errors: [
      [404, 'intent_not_found', "intent_id names no intent of the caller's developer."],
      [
        404,
        'product_not_found',
        "product_id names no product of the catalog (by the gateway's id or the merchant's own feed id), or none of merchant_id when given.",
      ],
      [503, 'signing_unavailable', 'Signing unavailable for this integration (no mandate signing key configured).'],
    ],
    handler: async (ctx, { body }) => {
      const { db, config, signingKeys } = ctx.deps;
      const deps = { db, signingKey: signingKeys.mandate, issuer: config.publicBaseUrl };
      const mandate = await signIntentMandate(deps, body, ctx.state.apiKey!, requestResourceId(ctx, 'mnd'));
      return { status: 201, body: { mandate } };
    },
  });
}
