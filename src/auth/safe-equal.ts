/** @module auth/safe-equal The one constant-time comparison every secret check goes through. */
import { timingSafeEqual } from 'node:crypto';

/** Signature of `safeEqual`, so verifiers can take it by injection (tests pass a spy). */
export type SafeEqual = (a: string | Uint8Array, b: string | Uint8Array) => boolean;

/**
 * Compares two secrets without leaking where they differ. Lengths are compared first (the length of a
 * digest or hash is public; `timingSafeEqual` throws on unequal lengths), then every unit is compared.
 * Two strings (signatures, tokens: the hot path) are compared code unit by code unit, OR-ing the
 * differences, with no early exit; equal code units mean equal UTF-8 bytes. This avoids two Buffer
 * copies and a native call per request. Anything else goes through crypto's `timingSafeEqual`.
 * @example
 *   if (!safeEqual(receivedDigest, expectedDigest)) throw unauthorized();
 */
export const safeEqual: SafeEqual = (a, b) => {
  if (typeof a === 'string' && typeof b === 'string') {
    const length = a.length;
    if (length !== b.length) return false;
    let diff = 0;
    for (let i = 0; i < length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
    return diff === 0;
  }
  const x = typeof a === 'string' ? Buffer.from(a, 'utf8') : a;
  const y = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  if (x.byteLength !== y.byteLength) return false;
  return timingSafeEqual(x, y);
};
