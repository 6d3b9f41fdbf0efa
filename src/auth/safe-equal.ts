/** @module auth/safe-equal The one constant-time comparison every secret check goes through. */
import { timingSafeEqual } from 'node:crypto';

/** Signature of `safeEqual`, so verifiers can take it by injection (tests pass a spy). */
export type SafeEqual = (a: string | Uint8Array, b: string | Uint8Array) => boolean;

/**
 * Compares two secrets without leaking where they differ. Lengths are compared first (the length of a
 * digest or hash is public; `timingSafeEqual` throws on unequal lengths), then every byte is compared.
 * @example
 *   if (!safeEqual(receivedDigest, expectedDigest)) throw unauthorized();
 */
export const safeEqual: SafeEqual = (a, b) => {
  const x = typeof a === 'string' ? Buffer.from(a, 'utf8') : a;
  const y = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  if (x.byteLength !== y.byteLength) return false;
  return timingSafeEqual(x, y);
};
