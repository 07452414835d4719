import { createAcpAdapter } from './acp/adapter';
import type { MerchantSessionAdapter } from './merchant-session';
import { createUcpAdapter } from './ucp/adapter';
import { platformProfileUrl } from './ucp/platform-profile';
import { ucpSignerFromPem, type UcpSigner } from './ucp/signing';
import type { UcpClientDeps } from './ucp/client';

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

const signers = new Map<string, Promise<UcpSigner>>();

/** The UCP signer of a deployment (null without a key): the same key the platform profile publishes. Parsed once per key. */
export async function ucpSignerOf(ucpSigningKey: string | undefined): Promise<UcpSigner | null> {
  if (!ucpSigningKey) return null;
  let signer = signers.get(ucpSigningKey);
  if (!signer) signers.set(ucpSigningKey, (signer = ucpSignerFromPem(ucpSigningKey)));
  return signer;
}

/** How the gateway calls a UCP business (its platform profile, its signer) under these settings. */
export async function ucpClientDeps(s: ProtocolSettings): Promise<UcpClientDeps> {
  const signer = await ucpSignerOf(s.ucpSigningKey);
  return {
    allowPrivateEndpoints: s.allowPrivateEndpoints,
    timeoutMs: s.timeoutMs,
    platformProfileUrl: platformProfileUrl(s.publicBaseUrl),
    ...(signer ? { signer } : {}),
  };
}

export async function createSessionAdapters(s: ProtocolSettings): Promise<SessionAdapters> {
  return {
    ucp: createUcpAdapter(await ucpClientDeps(s)),
    acp: createAcpAdapter({ allowPrivateEndpoints: s.allowPrivateEndpoints, timeoutMs: s.timeoutMs }),
  };
}
