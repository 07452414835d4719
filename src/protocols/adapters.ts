import { createAcpAdapter } from './acp/adapter';
import type { MerchantSessionAdapter } from './merchant-session';
import { createUcpAdapter } from './ucp/adapter';
import { platformProfileUrl } from './ucp/platform-profile';
import { ucpSignerFromPem, type UcpSigner } from './ucp/signing';

/**
 * The protocol adapters a deployment buys through, built from its configuration (one place, used by
 * the checkout's activities). ACP: the payment credential the confirm names is sent to the seller as
 * given (a delegated payment token the buyer's agent obtained from its PSP, docs/MERCHANTS.md).
 */
export interface ProtocolSettings {
  allowPrivateEndpoints: boolean;
  timeoutMs: number;
  publicBaseUrl: string;
  /** PEM of the gateway's UCP signing key; absent: requests to UCP businesses go unsigned. */
  ucpSigningKey?: string;
}

export type SessionAdapters = Record<'ucp' | 'acp', MerchantSessionAdapter>;

/** The UCP signer of a deployment (null without a key): the same key the platform profile publishes. */
export async function ucpSignerOf(ucpSigningKey: string | undefined): Promise<UcpSigner | null> {
  return ucpSigningKey ? ucpSignerFromPem(ucpSigningKey) : null;
}

export async function createSessionAdapters(s: ProtocolSettings): Promise<SessionAdapters> {
  const signer = await ucpSignerOf(s.ucpSigningKey);
  return {
    ucp: createUcpAdapter({
      allowPrivateEndpoints: s.allowPrivateEndpoints,
      timeoutMs: s.timeoutMs,
      platformProfileUrl: platformProfileUrl(s.publicBaseUrl),
      ...(signer ? { signer } : {}),
    }),
    acp: createAcpAdapter({ allowPrivateEndpoints: s.allowPrivateEndpoints, timeoutMs: s.timeoutMs }),
  };
}
