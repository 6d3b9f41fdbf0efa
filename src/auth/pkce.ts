/**
 * @module auth/pkce
 * Proof Key for Code Exchange (RFC 7636) with S256, the only method roa takes: `plain` would hand
 * the verifier to whoever sees the authorization request (RFC 9700 §2.1.1).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** RFC 7636 §4.2: S256 gives base64url of a SHA-256 digest, without padding: 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isCodeVerifier(v: string): boolean {
  return VERIFIER.test(v);
}

export function isS256Challenge(c: string): boolean {
  return S256_CHALLENGE.test(c);
}

/** `BASE64URL(SHA256(ASCII(verifier)))` (RFC 7636 §4.2). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * True when `verifier` is well-formed and hashes to `challenge`, compared in constant time (§4.6).
 * @example
 *   verifierMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM') // true
 */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!isCodeVerifier(verifier) || !isS256Challenge(challenge)) return false;
  return timingSafeEqual(Buffer.from(s256(verifier)), Buffer.from(challenge));
}
