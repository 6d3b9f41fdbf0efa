/**
 * @module auth/oauth1/signature
 * The four signature methods (RFC 5849 §3.4.2–§3.4.4, and HMAC-SHA256 as the later drafts and most
 * libraries name it): computing one (for clients and tests) and checking one in constant time.
 */
import { createHash, createHmac, createPublicKey, createSign, verify, type KeyObject, type KeyLike } from 'node:crypto';
import { BoundedMap } from '../../util/bounded-map.js';
import { safeEqual as defaultSafeEqual, type SafeEqual } from '../safe-equal.js';
import { hmacBase64, prepareHmacKey, type HmacAlgorithm, type PreparedHmacKey } from '../hmac-one-shot.js';
import { oauthEncode } from './percent-encoding.js';

export const OAUTH1_SIGNATURE_METHODS = ['HMAC-SHA1', 'HMAC-SHA256', 'RSA-SHA1', 'PLAINTEXT'] as const;
export type OAuth1SignatureMethod = (typeof OAUTH1_SIGNATURE_METHODS)[number];

/** True for a method this server verifies. */
export function isSignatureMethod(value: string): value is OAuth1SignatureMethod {
  return (OAUTH1_SIGNATURE_METHODS as readonly string[]).includes(value);
}

/** §3.4.2: the HMAC key and the PLAINTEXT signature, `encode(client secret)&encode(token secret)`. */
export function signingKey(consumerSecret: string, tokenSecret: string | undefined): string {
  return `${oauthEncode(consumerSecret)}&${oauthEncode(tokenSecret ?? '')}`;
}

/** The secrets and keys a signature is made or checked with. */
export interface SignatureSecrets {
  consumerSecret?: string | undefined;
  tokenSecret?: string | undefined;
  /** RSA-SHA1: the client's private key to sign with. */
  rsaPrivateKey?: KeyLike | undefined;
}

/**
 * The `oauth_signature` value (before the header's percent-encoding) of `baseString`.
 * @example
 *   oauth1Signature('HMAC-SHA1', base, { consumerSecret: 'kd94hf93k423kf44', tokenSecret: 'pfkkdhi9sl3r4s00' })
 */
export function oauth1Signature(method: OAuth1SignatureMethod, baseString: string, secrets: SignatureSecrets): string {
  const key = signingKey(secrets.consumerSecret ?? '', secrets.tokenSecret);
  switch (method) {
    case 'HMAC-SHA1':
      return createHmac('sha1', key).update(baseString).digest('base64');
    case 'HMAC-SHA256':
      return createHmac('sha256', key).update(baseString).digest('base64');
    case 'PLAINTEXT':
      return key;
    case 'RSA-SHA1': {
      if (secrets.rsaPrivateKey === undefined) throw new TypeError('RSA-SHA1 needs rsaPrivateKey');
      return createSign('RSA-SHA1').update(baseString).sign(secrets.rsaPrivateKey, 'base64');
    }
  }
}

// Parsed public keys by PEM: parsing one costs far more than the verification.
const PUBLIC_KEYS = new BoundedMap<string, KeyObject | null>(1000);

/** The parsed key of a registered PEM, or undefined when it is not an RSA public key. */
export function rsaPublicKey(pem: string): KeyObject | undefined {
  let key = PUBLIC_KEYS.get(pem);
  if (key === undefined) {
    try {
      const parsed = createPublicKey(pem);
      key = parsed.asymmetricKeyType === 'rsa' ? parsed : null;
    } catch {
      key = null;
    }
    PUBLIC_KEYS.set(pem, key);
  }
  return key ?? undefined;
}

// Prepared HMAC keys, per algorithm: padding a key per request cost as much as the HMAC, and so did
// building `client secret&token secret` to look one up. Found by the token secret (the consumer's
// for a request without a token) and checked against the other secret: both strings come from the
// credential caches, so their hashes are already known and the check is usually a pointer compare.
// Bounded like the other secret caches.
interface KeyEntry {
  consumerSecret: string;
  key: PreparedHmacKey;
}
const BY_TOKEN_SECRET: Record<HmacAlgorithm, BoundedMap<string, KeyEntry>> = { sha1: new BoundedMap(10_000), sha256: new BoundedMap(10_000) };
const BY_CONSUMER_SECRET: Record<HmacAlgorithm, BoundedMap<string, PreparedHmacKey>> = { sha1: new BoundedMap(10_000), sha256: new BoundedMap(10_000) };

function preparedKey(algorithm: HmacAlgorithm, consumerSecret: string, tokenSecret: string | undefined): PreparedHmacKey {
  if (tokenSecret === undefined || tokenSecret === '') {
    const keys = BY_CONSUMER_SECRET[algorithm];
    let key = keys.get(consumerSecret);
    if (key === undefined) {
      key = prepareHmacKey(algorithm, signingKey(consumerSecret, undefined));
      keys.set(consumerSecret, key);
    }
    return key;
  }
  const keys = BY_TOKEN_SECRET[algorithm];
  const hit = keys.get(tokenSecret);
  if (hit !== undefined && hit.consumerSecret === consumerSecret) return hit.key;
  const key = prepareHmacKey(algorithm, signingKey(consumerSecret, tokenSecret));
  keys.set(tokenSecret, { consumerSecret, key });
  return key;
}

/**
 * Whether `signature` is the right one for `baseString`. HMAC and PLAINTEXT compare in constant
 * time (through `safeEqual`); RSA-SHA1 verifies with the public key (§3.4.3).
 */
export function checkOAuth1Signature(
  method: OAuth1SignatureMethod, baseString: string, signature: string,
  secrets: { consumerSecret: string; tokenSecret: string | undefined; rsaPublicKey: KeyObject | undefined },
  safeEqual: SafeEqual = defaultSafeEqual,
): boolean {
  if (method === 'RSA-SHA1') {
    if (secrets.rsaPublicKey === undefined) return false;
    try {
      return verify('RSA-SHA1', Buffer.from(baseString), secrets.rsaPublicKey, Buffer.from(signature, 'base64'));
    } catch {
      return false;
    }
  }
  if (method === 'PLAINTEXT') return safeEqual(signature, signingKey(secrets.consumerSecret, secrets.tokenSecret));
  return safeEqual(signature, hmacBase64(preparedKey(method === 'HMAC-SHA1' ? 'sha1' : 'sha256', secrets.consumerSecret, secrets.tokenSecret), baseString));
}

/** The `oauth_body_hash` of a body (OAuth Request Body Hash extension §3.1: SHA-1, base64). */
export function oauthBodyHash(body: Uint8Array): string {
  return createHash('sha1').update(body).digest('base64');
}
