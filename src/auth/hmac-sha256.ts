/**
 * @module auth/hmac-sha256
 * HMAC-SHA256 for the hmac scheme's signatures: auth/hmac-one-shot's prepared keys and one-shot
 * hashing, with the algorithm fixed.
 */
import { hmacBase64, prepareHmacKey as prepareKey, type PreparedHmacKey } from './hmac-one-shot.js';

/** A secret prepared for repeated HMAC-SHA256 computations (its padded blocks, RFC 2104 §2). */
export type HmacKey = PreparedHmacKey;

/** Pads (and, when longer than a block, first hashes) the key, as RFC 2104 §2 says. */
export function prepareHmacKey(secret: string | Uint8Array): HmacKey {
  return prepareKey('sha256', secret);
}

/** base64(HMAC-SHA256(key, message)), the message encoded as UTF-8. */
export function hmacSha256Base64(key: HmacKey, message: string): string {
  return hmacBase64(key, message);
}
