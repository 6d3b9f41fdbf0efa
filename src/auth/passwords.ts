/**
 * @module auth/passwords
 * Password hashing with scrypt (RFC 7914): per-user random salt, encoded as `scrypt$N$r$p$salt$hash`.
 */
import { randomBytes, scrypt as scryptCb, type ScryptOptions } from 'node:crypto';
import { safeEqual as defaultSafeEqual, type SafeEqual } from './safe-equal.js';

export interface ScryptParams {
  /** CPU/memory cost, a power of two. Default 2^15 (32 MiB with r=8). */
  N: number;
  r: number;
  p: number;
}

export const DEFAULT_SCRYPT_PARAMS: Readonly<ScryptParams> = Object.freeze({ N: 2 ** 15, r: 8, p: 1 });

const SALT_BYTES = 16;
const KEY_BYTES = 32;
// Upper bounds for parameters read back from a stored hash, so a corrupt row cannot pin the CPU or memory.
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

function scrypt(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  // Node's default maxmem (32 MiB) is exactly 128*N*r at N=2^15, r=8; leave headroom.
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCb(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/**
 * Hashes a password with a fresh random salt.
 * @example
 *   const stored = await hashPassword('correct horse'); // 'scrypt$32768$8$1$<salt>$<hash>'
 */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  checkParams(params);
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Parses `scrypt$N$r$p$salt$hash`; undefined when the string is not one. */
export function parsePasswordHash(stored: string): { params: ScryptParams; salt: Buffer; hash: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map((s) => (/^[1-9][0-9]{0,8}$/.test(s!) ? Number(s) : NaN)) as [number, number, number];
  const params = { N, r, p };
  try {
    checkParams(params);
  } catch {
    return undefined;
  }
  const salt = Buffer.from(parts[4]!, 'base64url');
  const hash = Buffer.from(parts[5]!, 'base64url');
  if (salt.length < 8 || hash.length < 16) return undefined;
  return { params, salt, hash };
}

/**
 * True when `password` matches the stored scrypt hash; compares in constant time through `safeEqual`.
 * A malformed stored hash never matches (and is not an exception: the caller answers 401 either way).
 */
export async function verifyPassword(password: string, stored: string, equal: SafeEqual = defaultSafeEqual): Promise<boolean> {
  const parsed = parsePasswordHash(stored);
  if (parsed === undefined) {
    // Still spend the work so a broken row is not distinguishable by timing from a wrong password.
    await scrypt(password, DUMMY_SALT, DEFAULT_SCRYPT_PARAMS);
    return false;
  }
  const key = await scrypt(password, parsed.salt, parsed.params);
  return equal(key, parsed.hash);
}

const DUMMY_SALT = randomBytes(SALT_BYTES);
let dummyHash: Promise<string> | undefined;

/**
 * A hash of a random password, for verifying against when the user does not exist, so an unknown user
 * costs the same scrypt work as a wrong password (no user enumeration by timing).
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString('base64url'));
  return dummyHash;
}

function checkParams({ N, r, p }: ScryptParams): void {
  const powerOfTwo = Number.isInteger(N) && N > 1 && (N & (N - 1)) === 0;
  if (!powerOfTwo || N > MAX_N) throw new RangeError(`scrypt N must be a power of two in 2..${MAX_N}`);
  if (!Number.isInteger(r) || r < 1 || r > MAX_R) throw new RangeError(`scrypt r must be in 1..${MAX_R}`);
  if (!Number.isInteger(p) || p < 1 || p > MAX_P) throw new RangeError(`scrypt p must be in 1..${MAX_P}`);
}
