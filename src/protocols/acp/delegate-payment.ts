import { z } from 'zod';
import type { SessionMerchant } from '../merchant-session';
import { acpHttp, AcpRequestError, type AcpClientDeps } from './client';
import { acpError, type AcpAddress } from './wire';

/**
 * ACP delegated payment, agent side (openapi.delegate_payment.yaml, API-Version 2026-04-17): the agent
 * asks a PSP (`POST <psp>/agentic_commerce/delegate_payment`) to tokenize the buyer's card under an
 * Allowance (one use, at most `max_amount` in `currency`, for one seller checkout session and one
 * merchant, until `expires_at`); the PSP answers a vault token id (`vt_…`) the agent sends the seller
 * in `payment_data`, and the seller charges it through the same PSP, which enforces the allowance.
 *
 * The request carries the card itself (PAN or network token, expiry, CVC): whoever calls this handles
 * cardholder data and is in PCI DSS scope. The gateway holds no card data today; `pspDelegator` takes
 * a `resolveCard` function so the card comes from wherever the deployment keeps it (a PCI-compliant
 * vault), never from the gateway's database.
 *
 * Production with Stripe (what a deployment needs; none of it is wired here): Stripe issues its
 * delegated tokens as Shared Payment Tokens (`spt_…`) through its own API rather than this endpoint:
 * an agent account on Stripe with the agentic-commerce (SPT) preview enabled and its secret key; the
 * buyer's card collected by Stripe (Elements / the mobile SDKs) into a PaymentMethod (`pm_…`) on a
 * Customer, so no card number reaches the gateway; then `POST /v1/shared_payment/issued_tokens` with
 * `payment_method`, `usage_limits` (currency, max_amount = the consented total, expires_at) and
 * `seller_details` (the seller's Stripe network business profile or its external id) under an
 * Idempotency-Key; the resulting token is what goes into the seller's `payment_data` (credential type
 * `spt`), and Stripe enforces the limits when the seller confirms a PaymentIntent with it. Stripe also
 * sends webhooks on the token's use and deactivation, which a deployment would verify with its Stripe
 * webhook secret. A PSP that implements this endpoint as specified needs only its base URL and the
 * bearer key it issued to the agent (`delegatePayment` below).
 */

/** What the adapter asks for when a payment handler needs a delegated token (`requires_delegate_payment`). */
export interface AcpDelegationRequest {
  checkout_id: string;
  merchant: SessionMerchant;
  /** The seller's checkout session the token is for (the allowance's `checkout_session_id`). */
  session_id: string;
  handler: { id: string; name: string; psp: string | null; config: Record<string, unknown> };
  /**
   * The credential token the checkout was given: a reference to the buyer's payment method that the
   * delegation resolves (a vaulted card, a PSP payment method id), never a card number.
   */
  payment_method_token: string;
  /** The allowance: at most this much (the total the buyer consented to), in this currency (lowercase ISO 4217). */
  max_amount_minor: number;
  currency: string;
  /** Fixed per checkout so a retried complete sends the same token (see `AcpCompleteSessionInput`). */
  expires_at: string;
}

/** Obtains a delegated payment token (`pspDelegator` below makes one from a PSP). */
export type AcpDelegatePayment = (request: AcpDelegationRequest) => Promise<{ token: string }>;

/** The card as ACP's PaymentMethodCard carries it (type `card`; only cards are delegated today). */
export interface AcpCardPaymentMethod {
  type: 'card';
  card_number_type: 'fpan' | 'network_token';
  number: string;
  exp_month?: string;
  exp_year?: string;
  name?: string;
  cvc?: string;
  cryptogram?: string;
  eci_value?: string;
  checks_performed?: Array<'avs' | 'cvv' | 'ani' | 'auth0'>;
  iin?: string;
  display_card_funding_type: 'credit' | 'debit' | 'prepaid';
  display_wallet_type?: string;
  display_brand?: string;
  display_last4?: string;
  metadata: Record<string, string>;
  virtual?: boolean;
}

export interface AcpRiskSignal {
  type: 'card_testing';
  score: number;
  action: 'blocked' | 'manual_review' | 'authorized';
}

export interface DelegatePaymentInput {
  /** Same key for the same delegation (a retry gets the PSP's stored token, not a second one). */
  idempotency_key: string;
  payment_method: AcpCardPaymentMethod;
  allowance: {
    max_amount_minor: number;
    /** ISO 4217; sent lowercase as the allowance requires. */
    currency: string;
    checkout_session_id: string;
    merchant_id: string;
    expires_at: string | Date;
  };
  billing_address?: AcpAddress;
  /** The agent's fraud signals, when it has any; none are made up (the request's array may be empty). */
  risk_signals?: AcpRiskSignal[];
  metadata?: Record<string, string>;
}

export interface DelegatedPaymentToken {
  /** The vault token the seller receives in `payment_data.instrument.credential.token`. */
  token_id: string;
  created: string;
  metadata: Record<string, string>;
  /** The PSP answered its stored token for this Idempotency-Key. */
  replayed: boolean;
}

/**
 * The PSP refused to delegate (a 4xx: invalid card, invalid allowance, conflicting key); the same
 * request gets the same answer. `code` is the PSP's.
 */
export class AcpDelegationRefused extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'AcpDelegationRefused';
  }
}

const delegateResponse = z.looseObject({
  id: z.string().min(1),
  created: z.string(),
  metadata: z.record(z.string(), z.string()).default({}),
});

/**
 * `POST <pspBaseUrl>/agentic_commerce/delegate_payment` with the PSP's bearer key. Returns the token;
 * throws `AcpDelegationRefused` for a 4xx, `AcpRequestError` (not retryable) for 401/403 (the key),
 * and `AcpRequestError` (retryable) for 5xx, 408, 429, an in-flight 409 or no answer.
 */
export async function delegatePayment(
  deps: AcpClientDeps,
  pspBaseUrl: string,
  pspKey: string,
  input: DelegatePaymentInput,
): Promise<DelegatedPaymentToken> {
  const url = `${pspBaseUrl.replace(/\/+$/, '')}/agentic_commerce/delegate_payment`;
  const expires = input.allowance.expires_at;
  const body = {
    payment_method: input.payment_method,
    allowance: {
      reason: 'one_time',
      max_amount: input.allowance.max_amount_minor,
      currency: input.allowance.currency.toLowerCase(),
      checkout_session_id: input.allowance.checkout_session_id,
      merchant_id: input.allowance.merchant_id,
      expires_at: typeof expires === 'string' ? expires : expires.toISOString(),
    },
    ...(input.billing_address ? { billing_address: input.billing_address } : {}),
    risk_signals: input.risk_signals ?? [],
    metadata: input.metadata ?? {},
  };
  const answer = await acpHttp(deps, { method: 'POST', url, bearer: pspKey, idempotencyKey: input.idempotency_key, body });
  if (answer.status === 401 || answer.status === 403) {
    // The PSP does not accept the agent's key: configuration, not the buyer's card.
    throw new AcpRequestError(`the PSP refused the agent's key (${answer.status})`, false, 'unauthorized', answer.status);
  }
  if (answer.status >= 400) {
    const error = acpError.safeParse(answer.json);
    const message = error.success ? error.data.message : answer.text.slice(0, 300) || `HTTP ${answer.status}`;
    throw new AcpDelegationRefused(message, error.success ? error.data.code : `http_${answer.status}`, answer.status);
  }
  const parsed = delegateResponse.safeParse(answer.json);
  if (!parsed.success) {
    throw new AcpRequestError(
      `the PSP answered ${answer.status} without a token: ${parsed.error.message.slice(0, 300)}`,
      false,
      'bad_answer',
      answer.status,
    );
  }
  return { token_id: parsed.data.id, created: parsed.data.created, metadata: parsed.data.metadata, replayed: answer.replayed };
}

export interface PspDelegatorOptions {
  pspBaseUrl: string;
  pspKey: string;
  /**
   * The buyer's card for the checkout's credential token (a reference into a card vault). Called on
   * every attempt, so it must answer the same card for the same token.
   */
  resolveCard: (paymentMethodToken: string) => Promise<AcpCardPaymentMethod>;
  billingAddress?: (paymentMethodToken: string) => Promise<AcpAddress | undefined>;
}

/**
 * The adapter's `delegatePayment` hook backed by a PSP that implements delegate_payment: one token per
 * checkout (Idempotency-Key `<checkout_id>:delegate_payment:<expires_at>`), scoped to the seller's
 * session and the consented total. The merchant id at the PSP is the handler's `config.merchant_id`
 * when the seller states one (the account the PSP knows the seller by), else the gateway's merchant id.
 */
export function pspDelegator(deps: AcpClientDeps, options: PspDelegatorOptions): AcpDelegatePayment {
  return async (req) => {
    const configured = req.handler.config.merchant_id;
    const merchantId = typeof configured === 'string' && configured.length > 0 ? configured : req.merchant.merchant_id;
    const billing = options.billingAddress ? await options.billingAddress(req.payment_method_token) : undefined;
    const token = await delegatePayment(deps, options.pspBaseUrl, options.pspKey, {
      idempotency_key: `${req.checkout_id}:delegate_payment:${req.expires_at}`,
      payment_method: await options.resolveCard(req.payment_method_token),
      allowance: {
        max_amount_minor: req.max_amount_minor,
        currency: req.currency,
        checkout_session_id: req.session_id,
        merchant_id: merchantId,
        expires_at: req.expires_at,
      },
      ...(billing ? { billing_address: billing } : {}),
      metadata: { checkout_id: req.checkout_id, source: 'commerce-intent-gateway' },
    });
    return { token: token.token_id };
  };
}
