import { z } from 'zod';
import { atLeastOneMinorUnit, isoDateTime, money, text } from './common';
import { currencyCode } from './intents';

const freeObject = z.record(z.string(), z.unknown());

export const MatchCreateBody = z
  .strictObject({
    intent_id: text(100),
    proposal_ids: z.array(text(100)).min(1).max(500).optional().meta({ description: 'Absent: every active proposal of the intent.' }),
  })
  .meta({ id: 'MatchCreateRequest' });

const BreakdownPart = z.object({ value: z.number(), weight: z.number(), contribution: z.number(), reason: z.string() });
export const RankedProposal = z
  .object({
    rank: z.number().int(),
    proposal_id: z.string(),
    merchant_agent_id: z.string(),
    product_id: z.number().int(),
    offer_title: z.string(),
    price: z.number(),
    currency: z.string(),
    proposal_state: z.string(),
    score: z.number(),
    breakdown: z.object({
      price_fit: BreakdownPart,
      trust: BreakdownPart,
      inventory: BreakdownPart,
      shipping: BreakdownPart,
      evidence: BreakdownPart,
      commission: BreakdownPart,
    }),
  })
  .meta({ id: 'RankedProposal' });
/** One ranked proposal as the API shows it and a match session stores it (`match_sessions.ranked_proposals`). */
export type RankedProposal = z.infer<typeof RankedProposal>;

export const MatchSession = z
  .object({
    match_session_id: z.string(),
    intent_id: z.string(),
    best_proposal_id: z.string().nullable(),
    ranked_proposals: z.array(RankedProposal),
    summary: freeObject,
    status: z.enum(['open', 'accepted', 'closed', 'expired']),
    created_at: isoDateTime.nullable(),
    updated_at: isoDateTime.nullable(),
    expires_at: isoDateTime.nullable(),
  })
  .meta({ id: 'MatchSession' });

export const MatchToken = z
  .object({
    match_token_id: z.string(),
    match_session_id: z.string(),
    intent_id: z.string(),
    proposal_id: z.string(),
    acceptance_state: z.enum(['issued', 'accepted', 'payment_authorized', 'consumed', 'expired', 'revoked']),
    amount: z.number(),
    currency: z.string(),
    intent_snapshot: freeObject,
    proposal_snapshot: freeObject,
    ranking_snapshot: freeObject,
    trace_ids: freeObject,
    signed_token: z
      .string()
      .meta({ description: 'Compact JWS (EdDSA) over ids, amount, currency and expiry; keys at /.well-known/jwks.json.' }),
    issued_at: isoDateTime.nullable(),
    expires_at: isoDateTime.nullable(),
    accepted_at: isoDateTime.nullable(),
  })
  .meta({ id: 'MatchToken' });

export const MatchSessionEnvelope = z.object({ match_session: MatchSession }).meta({ id: 'MatchSessionEnvelope' });
export const MatchTokenEnvelope = z.object({ match_token: MatchToken }).meta({ id: 'MatchTokenEnvelope' });
export const MatchSessionParams = z.object({ matchSessionId: z.string().min(1).max(100) });
export const MatchTokenParams = z.object({ matchTokenId: z.string().min(1).max(100) });
/** A rendered session shows at most this many ranked proposals (and their cards). */
export const RENDER_LIMIT_MAX = 10;
export const MatchRenderQuery = z.object({ limit: z.coerce.number().int().min(1).max(RENDER_LIMIT_MAX).default(5) });

export const AcceptBody = z
  .strictObject({
    proposal_id: text(100).optional(),
    match_token_id: text(100).optional(),
  })
  .meta({ id: 'MatchAcceptRequest' });

export const PaymentAuthorizationBody = z
  .strictObject({
    expected_amount: money(1e7, 'The amount the caller expects to pay, in major units.').optional(),
    currency: currencyCode.optional(),
    proposal_id: text(100).optional(),
  })
  .superRefine(atLeastOneMinorUnit('expected_amount'))
  .meta({ id: 'PaymentAuthorizationRequest' });

export const PaymentAuthorization = z
  .object({
    authorization_id: z.string(),
    status: z
      .enum(['authorized', 'voided'])
      .meta({ description: '`voided` when a checkout whose merchant handoff failed for good released it.' }),
    match_token_id: z.string(),
    proposal_id: z.string(),
    intent_id: z.string(),
    amount: z.number(),
    currency: z.string(),
    authorized_at: isoDateTime,
    voided_at: isoDateTime.nullable().meta({ description: 'When it was voided; null while authorized.' }),
    void_reason: z.string().nullable().meta({
      description:
        'Why it was voided, in words: the checkout that failed and its code (e.g. `checkout chk_… failed: merchant_handoff_failed`), a merchant that asked for the buyer on its page, or a token that expired without a checkout; null while authorized.',
    }),
  })
  .meta({ id: 'PaymentAuthorization' });

export const PaymentAuthorizationParams = z.object({ authorizationId: z.string().min(1).max(100) });

export const PaymentAuthorizationEnvelope = z
  .object({ payment_authorization: PaymentAuthorization })
  .meta({ id: 'PaymentAuthorizationEnvelope' });

export const PaymentAuthorizationResponse = z
  .object({ payment_authorization: PaymentAuthorization, match_token: MatchToken })
  .meta({ id: 'PaymentAuthorizationResponse' });
