/**
 * @module auth/hmac-one-shot
 * HMAC-SHA1 and HMAC-SHA256 (RFC 2104) for the signed-request hot paths (the hmac scheme through
 * auth/hmac-sha256, OAuth 1's signatures): the key's padded blocks prepared once per secret, each
 * signature two one-shot `crypto.hash` calls over buffers reused by every signature.
 *
 * Why: an Hmac object per request (`createHmac`, `update`, `digest`) costs more than hashing the few
 * dozen or hundred bytes a request signature covers (figures in bench/RESULTS.md's git history).
 * OpenSSL's SHA-1 and SHA-256 have no branch that depends on key or message bytes; lengths are public.
 */
import { createHash, createHmac } from 'node:crypto';
import { oneShotHash, type OneShotHash } from './one-shot-hash.js';

/** `crypto.hash` is there on every node roa supports (engines: >= 20.12). */
const hash = oneShotHash as OneShotHash;

export type HmacAlgorithm = 'sha1' | 'sha256';

const BLOCK = 64;
const DIGEST: Record<HmacAlgorithm, number> = { sha1: 20, sha256: 32 };
/** Base strings up to this many bytes are written into the shared buffer; longer ones go through createHmac. */
const MESSAGE_ROOM = 2048;

/** A key prepared for repeated HMACs with one algorithm: its padded blocks (RFC 2104 §2). */
export interface PreparedHmacKey {
  readonly algorithm: HmacAlgorithm;
  readonly ipad: Uint8Array;
  readonly opad: Uint8Array;
  /** The key itself, for messages too long for the shared buffer. */
  readonly key: Uint8Array;
}

/** Pads (and, when longer than a block, first hashes) the key, as RFC 2104 §2 says. */
export function prepareHmacKey(algorithm: HmacAlgorithm, secret: string | Uint8Array): PreparedHmacKey {
  const raw: Uint8Array = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  const key: Uint8Array = raw.length > BLOCK ? createHash(algorithm).update(raw).digest() : Uint8Array.from(raw);
  const ipad = new Uint8Array(BLOCK).fill(0x36);
  const opad = new Uint8Array(BLOCK).fill(0x5c);
  for (let i = 0; i < key.length; i++) {
    ipad[i]! ^= key[i]!;
    opad[i]! ^= key[i]!;
  }
  return { algorithm, ipad, opad, key: raw };
}

/** ipad block + message for the inner hash (the module is single-threaded: one is enough). */
const inner = Buffer.alloc(BLOCK + MESSAGE_ROOM);
/** opad block + inner digest, per algorithm (their lengths differ). */
const outer: Record<HmacAlgorithm, Buffer> = { sha1: Buffer.alloc(BLOCK + DIGEST.sha1), sha256: Buffer.alloc(BLOCK + DIGEST.sha256) };
/** `inner` cut to ipad + a message of n bytes, per n: a subarray per call would be an allocation. */
const innerViews: Buffer[] = [];

/**
 * Writes `message` after the ipad block as UTF-8; the bytes written, or -1 when it does not fit.
 * One native write: a base string is usually a concatenation (a rope), which a loop of charCodeAt
 * reads several times slower than the encoder flattening it once.
 */
function writeMessage(message: string): number {
  const length = message.length;
  if (length > MESSAGE_ROOM) return -1;
  // A UTF-16 code unit takes at most 3 bytes in UTF-8: only a long message needs its size counted.
  if (length * 3 > MESSAGE_ROOM && Buffer.byteLength(message, 'utf8') > MESSAGE_ROOM) return -1;
  return inner.write(message, BLOCK, 'utf8');
}

/**
 * base64(HMAC(key, message)), the message as UTF-8: what `createHmac(algorithm, secret).update(message).digest('base64')` gives.
 * @example
 *   hmacBase64(prepareHmacKey('sha1', 'kd94hf93k423kf44&pfkkdhi9sl3r4s00'), baseString)
 */
export function hmacBase64(key: PreparedHmacKey, message: string): string {
  const length = writeMessage(message);
  if (length < 0) return createHmac(key.algorithm, key.key).update(message, 'utf8').digest('base64');
  inner.set(key.ipad, 0);
  const view = (innerViews[length] ??= inner.subarray(0, BLOCK + length));
  const out = outer[key.algorithm];
  out.set(key.opad, 0);
  out.write(hash(key.algorithm, view, 'latin1'), BLOCK, 'latin1');
  return hash(key.algorithm, out, 'base64');
}
