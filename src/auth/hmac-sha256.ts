/**
 * @module auth/hmac-sha256
 * HMAC-SHA256 (RFC 2104) for the request-signing hot path, on SHA-256 written from FIPS 180-4.
 *
 * Why not node:crypto: a request signature covers a few dozen bytes, and each native call
 * (createHmac, or even the one-shot crypto.hash) costs more in argument checks, buffer copies and
 * crossing into C++ than the two compression rounds themselves. Here the key's two padded blocks
 * are compressed once per secret (RFC 2104 §4 suggests exactly this precomputation), so signing a
 * short string is two or three compression-function runs in plain JS, with no allocation but the
 * result. Output is identical to createHmac('sha256', key) (tested over random keys and messages).
 *
 * Timing: the compression function has no branch that depends on key or message bytes; loop
 * counts depend only on lengths, which are public.
 */
import { createHash } from 'node:crypto';

const BLOCK = 64;

// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

// FIPS 180-4 §5.3.3: the initial hash value.
const H0 = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);

/** The message schedule, reused by every compression (the module is single-threaded). */
const W = new Int32Array(64);

/** Runs the compression function over W[0..15] (already filled), updating `state` in place. */
function compress(state: Int32Array): void {
  for (let t = 16; t < 64; t++) {
    const w15 = W[t - 15]!;
    const w2 = W[t - 2]!;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[t] = (W[t - 16]! + s0 + W[t - 7]! + s1) | 0;
  }
  let a = state[0]!, b = state[1]!, c = state[2]!, d = state[3]!;
  let e = state[4]!, f = state[5]!, g = state[6]!, h = state[7]!;
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (h + S1 + ch + K[t]! + W[t]!) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
  state[4] = (state[4]! + e) | 0;
  state[5] = (state[5]! + f) | 0;
  state[6] = (state[6]! + g) | 0;
  state[7] = (state[7]! + h) | 0;
}

/** Loads 64 bytes of `bytes` from `offset` into W[0..15] (big-endian words). */
function loadBlock(bytes: Uint8Array, offset: number): void {
  for (let i = 0; i < 16; i++) {
    const p = offset + i * 4;
    W[i] = (bytes[p]! << 24) | (bytes[p + 1]! << 16) | (bytes[p + 2]! << 8) | bytes[p + 3]!;
  }
}

/**
 * Hashes `bytes` as the continuation of a message whose first `prefixLength` bytes (a multiple of
 * 64) are already folded into `state`; pads per FIPS 180-4 §5.1.1. `state` is updated in place.
 */
function finish(state: Int32Array, bytes: Uint8Array, prefixLength: number): void {
  const length = bytes.length;
  let offset = 0;
  for (; offset + BLOCK <= length; offset += BLOCK) {
    loadBlock(bytes, offset);
    compress(state);
  }
  // The tail, the 0x80 marker and the 64-bit bit length: one block, or two when the tail is long.
  W.fill(0, 0, 16);
  const tail = length - offset;
  for (let i = 0; i < tail; i++) W[i >> 2]! |= bytes[offset + i]! << (24 - 8 * (i & 3));
  W[tail >> 2]! |= 0x80 << (24 - 8 * (tail & 3));
  if (tail >= 56) {
    compress(state);
    W.fill(0, 0, 16);
  }
  const bits = (prefixLength + length) * 8;
  W[14] = Math.floor(bits / 0x100000000);
  W[15] = bits | 0;
  compress(state);
}

/** A secret prepared for repeated HMAC-SHA256 computations: the states after its padded blocks. */
export interface HmacKey {
  /** SHA-256 state after (key XOR ipad). */
  inner: Int32Array;
  /** SHA-256 state after (key XOR opad). */
  outer: Int32Array;
}

/** Pads (and, when longer than a block, first hashes) the key, as RFC 2104 §2 says, and compresses both pads. */
export function prepareHmacKey(secret: string | Buffer): HmacKey {
  let key: Uint8Array = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  if (key.length > BLOCK) key = createHash('sha256').update(key).digest();
  const ipad = new Uint8Array(BLOCK).fill(0x36);
  const opad = new Uint8Array(BLOCK).fill(0x5c);
  for (let i = 0; i < key.length; i++) {
    ipad[i]! ^= key[i]!;
    opad[i]! ^= key[i]!;
  }
  const inner = H0.slice();
  loadBlock(ipad, 0);
  compress(inner);
  const outer = H0.slice();
  loadBlock(opad, 0);
  compress(outer);
  return { inner, outer };
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_CODES = Array.from(BASE64, (c) => c.charCodeAt(0));
/** The 44 character codes of a base64 SHA-256 digest, reused by every call. */
const codes: number[] = new Array<number>(44).fill(0);
const state = new Int32Array(8);
const digest = new Uint8Array(32);
const ascii = new Uint8Array(1024);

/** The message as UTF-8 bytes; ASCII (every request line) is copied without a Buffer. */
function utf8(message: string): Uint8Array {
  const length = message.length;
  if (length <= ascii.length) {
    let i = 0;
    for (; i < length; i++) {
      const c = message.charCodeAt(i);
      if (c > 0x7f) break;
      ascii[i] = c;
    }
    if (i === length) return ascii.subarray(0, length);
  }
  return Buffer.from(message, 'utf8');
}

function writeDigest(from: Int32Array): void {
  for (let i = 0; i < 8; i++) {
    const word = from[i]!;
    digest[i * 4] = word >>> 24;
    digest[i * 4 + 1] = (word >>> 16) & 0xff;
    digest[i * 4 + 2] = (word >>> 8) & 0xff;
    digest[i * 4 + 3] = word & 0xff;
  }
}

/** base64(HMAC-SHA256(key, message)), the message encoded as UTF-8. */
export function hmacSha256Base64(key: HmacKey, message: string): string {
  state.set(key.inner);
  finish(state, utf8(message), BLOCK);
  writeDigest(state);
  state.set(key.outer);
  finish(state, digest, BLOCK);
  writeDigest(state);
  // 32 bytes: ten 3-byte groups and a 2-byte rest (one `=` of padding), 44 characters, built
  // from character codes in one go so the result is a flat string (the comparison reads it
  // character by character; a string grown by `+=` would be flattened first).
  for (let i = 0, o = 0; i < 30; i += 3, o += 4) {
    const n = (digest[i]! << 16) | (digest[i + 1]! << 8) | digest[i + 2]!;
    codes[o] = BASE64_CODES[n >>> 18]!;
    codes[o + 1] = BASE64_CODES[(n >>> 12) & 63]!;
    codes[o + 2] = BASE64_CODES[(n >>> 6) & 63]!;
    codes[o + 3] = BASE64_CODES[n & 63]!;
  }
  const n = (digest[30]! << 16) | (digest[31]! << 8);
  codes[40] = BASE64_CODES[n >>> 18]!;
  codes[41] = BASE64_CODES[(n >>> 12) & 63]!;
  codes[42] = BASE64_CODES[(n >>> 6) & 63]!;
  codes[43] = 61; // =
  return String.fromCharCode.apply(null, codes);
}
