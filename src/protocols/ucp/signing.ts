import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, flattenedVerify, FlattenedSign, type JWK } from 'jose';

/**
 * UCP message signatures (signatures.md): HTTP Message Signatures (RFC 9421) with a `Content-Digest`
 * (RFC 9530) over the raw body, ECDSA P-256 (`ES256`, every party must verify it) or P-384, keys as JWK
 * in the signer's profile `signing_keys`. The first release (2026-01-11) signed webhooks (and named a
 * `Request-Signature` header on requests) with a detached JWS over the body instead; both are here.
 *
 * The gateway's existing keys (src/crypto/signing-keys.ts) are Ed25519 (match tokens) and RSA
 * (mandates): neither is an algorithm UCP lets a verifier rely on, so UCP gets its own P-256 key.
 */

export type UcpSignatureAlg = 'ES256' | 'ES384';

/** The gateway's UCP signing key (private part stays in the process; `publicJwk` goes in the platform profile). */
export interface UcpSigner {
  kid: string;
  alg: UcpSignatureAlg;
  privateKey: KeyObject;
  publicJwk: JWK;
}

const CURVE_ALG: Record<string, { alg: UcpSignatureAlg; hash: 'sha256' | 'sha384' }> = {
  'P-256': { alg: 'ES256', hash: 'sha256' },
  'P-384': { alg: 'ES384', hash: 'sha384' },
};

/** A UCP signer from a PEM (PKCS#8 or SEC1) EC private key on P-256 or P-384; `kid` defaults to the JWK thumbprint. */
export async function ucpSignerFromPem(pem: string, kid?: string): Promise<UcpSigner> {
  return ucpSignerFromKey(createPrivateKey(pem), kid);
}

/** A fresh P-256 signer (tests, or a process without a configured key: its signatures die with it). */
export async function generateUcpSigner(kid?: string): Promise<UcpSigner> {
  return ucpSignerFromKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey, kid);
}

export async function ucpSignerFromKey(privateKey: KeyObject, kid?: string): Promise<UcpSigner> {
  if (privateKey.asymmetricKeyType !== 'ec') throw new Error('a UCP signing key must be an EC key (P-256 or P-384)');
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  const curve = CURVE_ALG[jwk.crv ?? ''];
  if (!curve) throw new Error(`a UCP signing key must be on P-256 or P-384, not ${jwk.crv ?? 'an unknown curve'}`);
  const id = kid ?? (await calculateJwkThumbprint(jwk));
  return {
    kid: id,
    alg: curve.alg,
    privateKey,
    publicJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid: id, use: 'sig', alg: curve.alg },
  };
}

/** `sha-256=:<base64>:` over the raw bytes (RFC 9530). */
export function contentDigest(body: string | Buffer): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

/** The `UCP-Agent` value: an RFC 8941 dictionary with the profile URL as a string member. */
export function ucpAgentHeader(profileUrl: string): string {
  return `profile="${profileUrl.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The `profile` member of a `UCP-Agent` header, or null when it has none. */
export function parseUcpAgent(value: string | undefined): string | null {
  if (!value) return null;
  const dict = parseDictionary(value);
  const profile = dict.get('profile');
  return profile && typeof profile.value === 'string' ? profile.value : null;
}

// ---- RFC 8941 structured fields: the subset the signature headers use -------------------------

type Bare = string | number | boolean | Buffer;
interface Member {
  value: Bare | Array<{ value: Bare }>;
  params: Map<string, Bare>;
}

class Cursor {
  i = 0;
  constructor(readonly s: string) {}
  ws() {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
  }
  peek() {
    return this.s[this.i];
  }
}

function parseBare(c: Cursor): Bare {
  const ch = c.peek();
  if (ch === '"') {
    let out = '';
    c.i++;
    while (c.i < c.s.length) {
      const x = c.s[c.i++];
      if (x === '\\') out += c.s[c.i++] ?? '';
      else if (x === '"') return out;
      else out += x;
    }
    throw new Error('unterminated string');
  }
  if (ch === ':') {
    const end = c.s.indexOf(':', c.i + 1);
    if (end < 0) throw new Error('unterminated byte sequence');
    const b = Buffer.from(c.s.slice(c.i + 1, end), 'base64');
    c.i = end + 1;
    return b;
  }
  if (ch === '?') {
    c.i += 2;
    return c.s[c.i - 1] === '1';
  }
  const m = /^-?\d+(\.\d+)?/.exec(c.s.slice(c.i));
  if (m) {
    c.i += m[0].length;
    return Number(m[0]);
  }
  const t = /^[A-Za-z*][A-Za-z0-9_\-.:/%*+!#$&'^`|~]*/.exec(c.s.slice(c.i));
  if (!t) throw new Error(`unexpected character at ${c.i}`);
  c.i += t[0].length;
  return t[0];
}

function parseParams(c: Cursor): Map<string, Bare> {
  const params = new Map<string, Bare>();
  while (c.peek() === ';') {
    c.i++;
    c.ws();
    const k = /^[a-z*][a-z0-9_\-.*]*/.exec(c.s.slice(c.i));
    if (!k) throw new Error('bad parameter name');
    c.i += k[0].length;
    if (c.peek() === '=') {
      c.i++;
      params.set(k[0], parseBare(c));
    } else params.set(k[0], true);
  }
  return params;
}

function parseDictionary(s: string): Map<string, Member> {
  const c = new Cursor(s.trim());
  const out = new Map<string, Member>();
  while (c.i < c.s.length) {
    c.ws();
    const k = /^[a-z*][a-z0-9_\-.*]*/.exec(c.s.slice(c.i));
    if (!k) throw new Error('bad dictionary key');
    c.i += k[0].length;
    let value: Member['value'] = true;
    if (c.peek() === '=') {
      c.i++;
      if (c.peek() === '(') {
        c.i++;
        const items: Array<{ value: Bare }> = [];
        for (;;) {
          c.ws();
          if (c.peek() === ')') {
            c.i++;
            break;
          }
          if (c.i >= c.s.length) throw new Error('unterminated inner list');
          items.push({ value: parseBare(c) });
          parseParams(c);
        }
        value = items;
      } else value = parseBare(c);
    }
    out.set(k[0], { value, params: parseParams(c) });
    c.ws();
    if (c.peek() === ',') c.i++;
    else if (c.i < c.s.length) throw new Error(`unexpected character at ${c.i}`);
  }
  return out;
}

function safeParseDictionary(s: string | undefined): Map<string, Member> | null {
  if (!s) return null;
  try {
    return parseDictionary(s);
  } catch {
    return null;
  }
}

// ---- RFC 9421 ---------------------------------------------------------------------------------

export interface SignatureTarget {
  /** Request: method, authority (host[:port]), path, query (without `?`). Response: status. */
  method?: string;
  authority?: string;
  path?: string;
  query?: string;
  status?: number;
  /** Header values by lower-case name. */
  headers: Record<string, string | string[] | undefined>;
}

function headerValue(headers: SignatureTarget['headers'], name: string): string | undefined {
  const v = headers[name];
  if (v === undefined) return undefined;
  return (Array.isArray(v) ? v.map((x) => x.trim()).join(', ') : v).trim();
}

function componentValue(target: SignatureTarget, component: string): string {
  switch (component) {
    case '@method':
      return (target.method ?? '').toUpperCase();
    case '@authority':
      return (target.authority ?? '').toLowerCase();
    case '@path':
      return target.path ?? '';
    case '@query':
      return `?${target.query ?? ''}`;
    case '@status':
      return String(target.status ?? '');
    default: {
      const v = headerValue(target.headers, component);
      if (v === undefined) throw new Error(`the signed component ${component} is not in the message`);
      return v;
    }
  }
}

function serializeParams(components: string[], params: { created?: number; keyid: string }): string {
  const list = `(${components.map((c) => `"${c}"`).join(' ')})`;
  return `${list}${params.created !== undefined ? `;created=${params.created}` : ''};keyid="${params.keyid}"`;
}

function signatureBase(target: SignatureTarget, components: string[], paramsText: string): string {
  const lines = components.map((c) => `"${c}": ${componentValue(target, c)}`);
  lines.push(`"@signature-params": ${paramsText}`);
  return lines.join('\n');
}

/**
 * Signs a request (method/authority/path) or a response (status) the way signatures.md lists: the
 * components present among @method/@authority/@path/@query (or @status), ucp-agent, idempotency-key,
 * content-digest and content-type. `headers` must already hold the values (content-digest included
 * when there is a body). Returns the `Signature-Input` and `Signature` headers.
 */
export function signHttpMessage(
  signer: UcpSigner,
  target: SignatureTarget,
  opts: { created?: number } = {},
): { 'signature-input': string; signature: string } {
  const components: string[] = [];
  if (target.status !== undefined) components.push('@status');
  else {
    components.push('@method', '@authority', '@path');
    if (target.query) components.push('@query');
  }
  for (const h of ['ucp-agent', 'idempotency-key', 'content-digest', 'content-type']) {
    if (headerValue(target.headers, h) !== undefined) components.push(h);
  }
  const paramsText = serializeParams(components, { created: opts.created ?? Math.floor(Date.now() / 1000), keyid: signer.kid });
  const base = signatureBase(target, components, paramsText);
  const hash = CURVE_ALG[signer.publicJwk.crv ?? '']?.hash ?? 'sha256';
  const sig = sign(hash, Buffer.from(base), { key: signer.privateKey, dsaEncoding: 'ieee-p1363' });
  return { 'signature-input': `sig1=${paramsText}`, signature: `sig1=:${sig.toString('base64')}:` };
}

export type SignatureFailure = 'signature_missing' | 'signature_invalid' | 'key_not_found' | 'digest_mismatch' | 'algorithm_unsupported';

export type SignatureCheck = { ok: true; kid: string; components: string[] } | { ok: false; code: SignatureFailure; message: string };

/**
 * Verifies an RFC 9421 signature against the signer's published keys. `required` lists components the
 * signature must cover (a signature over nothing proves nothing); a body requires content-digest, and
 * the digest is checked against the raw bytes.
 */
export function verifyHttpMessage(target: SignatureTarget, body: Buffer | string | null, keys: JWK[], required: string[]): SignatureCheck {
  const inputs = safeParseDictionary(headerValue(target.headers, 'signature-input'));
  const sigs = safeParseDictionary(headerValue(target.headers, 'signature'));
  if (!inputs || !sigs || inputs.size === 0) {
    return { ok: false, code: 'signature_missing', message: 'no parsable Signature-Input and Signature headers' };
  }
  const label = [...inputs.keys()].find((k) => sigs.has(k));
  if (!label) return { ok: false, code: 'signature_missing', message: 'Signature-Input and Signature name no common signature' };
  const input = inputs.get(label)!;
  const sigValue = sigs.get(label)!.value;
  if (!Array.isArray(input.value) || !Buffer.isBuffer(sigValue)) {
    return { ok: false, code: 'signature_invalid', message: 'malformed Signature-Input or Signature' };
  }
  const components = input.value.map((i) => String(i.value));
  const keyid = input.params.get('keyid');
  if (typeof keyid !== 'string') return { ok: false, code: 'signature_invalid', message: 'Signature-Input has no keyid' };
  const needed = [...required, ...(body && body.length > 0 ? ['content-digest'] : [])];
  const uncovered = needed.filter((c) => !components.includes(c));
  if (uncovered.length > 0) {
    return { ok: false, code: 'signature_invalid', message: `the signature does not cover ${uncovered.join(', ')}` };
  }
  const jwk = keys.find((k) => k.kid === keyid);
  if (!jwk) return { ok: false, code: 'key_not_found', message: `no signing key with kid ${keyid} in the signer's profile` };
  const curve = CURVE_ALG[jwk.crv ?? ''];
  if (jwk.kty !== 'EC' || !curve) {
    return { ok: false, code: 'algorithm_unsupported', message: `key ${keyid} is not an EC P-256/P-384 key` };
  }
  if (components.includes('content-digest')) {
    const expected = contentDigest(body ?? '');
    if (headerValue(target.headers, 'content-digest') !== expected) {
      return { ok: false, code: 'digest_mismatch', message: 'Content-Digest does not match the body' };
    }
  }
  // The params are re-serialized from the header's own text so the base is what the signer signed.
  const raw = headerValue(target.headers, 'signature-input')!;
  const paramsText = extractMemberText(raw, label);
  let base: string;
  try {
    base = signatureBase(target, components, paramsText);
  } catch (err) {
    return { ok: false, code: 'signature_invalid', message: (err as Error).message };
  }
  let good: boolean;
  try {
    good = verify(
      curve.hash,
      Buffer.from(base),
      { key: createPublicKey({ key: jwk as never, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
      sigValue,
    );
  } catch {
    good = false;
  }
  if (!good) return { ok: false, code: 'signature_invalid', message: `the signature does not verify with key ${keyid}` };
  return { ok: true, kid: keyid, components };
}

/** The serialized inner list and parameters of one dictionary member, as they appear in the header. */
function extractMemberText(header: string, label: string): string {
  // Members are separated by commas outside strings and inner lists; find ours and take its value text.
  let depth = 0;
  let inStr = false;
  let start = 0;
  const parts: string[] = [];
  for (let i = 0; i < header.length; i++) {
    const ch = header[i];
    if (inStr) {
      if (ch === '\\') i++;
      else if (ch === '"') inStr = false;
      continue;
    }
    if (ch === '"') inStr = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(header.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(header.slice(start));
  for (const p of parts) {
    const t = p.trim();
    if (t.startsWith(`${label}=`)) return t.slice(label.length + 1);
  }
  return '';
}

// ---- Detached JWS (2026-01-11 `Request-Signature`) -----------------------------------------------

/**
 * A detached JWS (`<header>..<signature>`) over the body with the unencoded-payload option of RFC 7797
 * (`b64: false`), which is what the first release names for `Request-Signature`.
 */
export async function signDetachedJws(signer: UcpSigner, body: string | Buffer): Promise<string> {
  const payload = typeof body === 'string' ? new TextEncoder().encode(body) : new Uint8Array(body);
  const jws = await new FlattenedSign(payload)
    .setProtectedHeader({ alg: signer.alg, kid: signer.kid, b64: false, crit: ['b64'] })
    .sign(signer.privateKey);
  return `${jws.protected}..${jws.signature}`;
}

/** Verifies a detached JWS over the body (encoded or unencoded payload) with the key its `kid` names. */
export async function verifyDetachedJws(token: string | undefined, body: Buffer | string, keys: JWK[]): Promise<SignatureCheck> {
  if (!token) return { ok: false, code: 'signature_missing', message: 'no Request-Signature header' };
  const [protectedB64, middle, signature] = token.split('.');
  if (protectedB64 === undefined || signature === undefined || middle !== '') {
    return { ok: false, code: 'signature_invalid', message: 'Request-Signature is not a detached JWS' };
  }
  let header: { alg?: string; kid?: string; b64?: boolean };
  try {
    header = JSON.parse(Buffer.from(protectedB64, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, code: 'signature_invalid', message: 'Request-Signature header is not JSON' };
  }
  const jwk = keys.find((k) => k.kid === header.kid);
  if (!jwk)
    return { ok: false, code: 'key_not_found', message: `no signing key with kid ${header.kid ?? '(none)'} in the signer's profile` };
  if (header.alg !== 'ES256' && header.alg !== 'ES384') {
    return { ok: false, code: 'algorithm_unsupported', message: `algorithm ${header.alg ?? '(none)'} is not accepted` };
  }
  const raw = typeof body === 'string' ? Buffer.from(body) : body;
  const payload = header.b64 === false ? new Uint8Array(raw) : raw.toString('base64url');
  try {
    await flattenedVerify({ protected: protectedB64, payload, signature }, createPublicKey({ key: jwk as never, format: 'jwk' }), {
      algorithms: ['ES256', 'ES384'],
    });
    return { ok: true, kid: header.kid!, components: [] };
  } catch {
    return { ok: false, code: 'signature_invalid', message: `the signature does not verify with key ${header.kid}` };
  }
}
