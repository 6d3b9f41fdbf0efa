/** @module auth/tokens Opaque token and client-secret generation and hashing (only hashes are stored). */
import { randomBytes } from 'node:crypto';
import { oneShotHash } from './one-shot-hash.js';
import { verifyPassword } from './passwords.js';
import { safeEqual as defaultSafeEqual, type SafeEqual } from './safe-equal.js';

/** A new opaque token: 256 random bits, base64url (43 characters). RFC 6750 §2.1 b64token-safe. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored form of a token: SHA-256, base64url. A token has 256 bits of entropy, so no salt or slow hash is needed. */
export function hashToken(token: string): string {
  return sha256Base64url(token);
}

/** SHA-256 of `text` as UTF-8, base64url. */
function sha256Base64url(text: string): string {
  // One native call, no Hash object: this runs for every bearer request.
  return oneShotHash('sha256', text, 'base64url');
}

/**
 * A new client secret and the hash to store (`sha256$<base64url>`). Generated secrets carry 256 random
 * bits, so a fast hash cannot be brute-forced, and the token endpoint does not pay scrypt per request.
 * @example
 *   const { clientSecret, secretHash } = generateClientSecret();
 *   await store.createClient({ clientId, secretHash, userName, scopes });
 *   console.log(clientSecret); // shown once
 */
export function generateClientSecret(): { clientSecret: string; secretHash: string } {
  const clientSecret = randomBytes(32).toString('base64url');
  return { clientSecret, secretHash: hashClientSecret(clientSecret) };
}

/** `sha256$<base64url>` of a client secret. */
export function hashClientSecret(secret: string): string {
  return 'sha256$' + sha256Base64url(secret);
}

/**
 * True when `secret` matches the stored hash: `sha256$...` (generated secrets) or `scrypt$...` (a
 * human-chosen secret an operator hashed like a password). Constant time through `safeEqual`.
 */
export async function verifyClientSecret(secret: string, stored: string, equal: SafeEqual = defaultSafeEqual): Promise<boolean> {
  if (stored.startsWith('scrypt$')) return verifyPassword(secret, stored, equal);
  return equal(hashClientSecret(secret), stored);
}
