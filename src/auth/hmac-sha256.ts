/**
 * @module auth/hmac-sha256
 * HMAC-SHA256 (RFC 2104) from two one-shot SHA-256 digests over keys padded once per secret.
 * node's createHmac builds a native object per call; on the request path that costs more than
 * the hashing itself. Results are identical to createHmac('sha256', key) (tested).
 */
import { createHash } from 'node:crypto';
import * as nodeCrypto from 'node:crypto';

const BLOCK = 64;

/** A secret prepared for repeated HMAC-SHA256 computations. */
export interface HmacKey {
  inner: Buffer;
  outer: Buffer;
}

/** Pads (and, when longer than a block, first hashes) the key, as RFC 2104 §2 says. */
export function prepareHmacKey(secret: string | Buffer): HmacKey {
  let key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  if (key.length > BLOCK) key = createHash('sha256').update(key).digest();
  const inner = Buffer.alloc(BLOCK, 0x36);
  const outer = Buffer.alloc(BLOCK, 0x5c);
  for (let i = 0; i < key.length; i++) {
    inner[i]! ^= key[i]!;
    outer[i]! ^= key[i]!;
  }
  return { inner, outer };
}

// crypto.hash (one-shot, no object) exists from node 20.12; older runtimes fall back to createHash.
const oneShot = (nodeCrypto as unknown as { hash?: (alg: string, data: Buffer, enc: 'buffer' | 'base64') => Buffer | string }).hash;

function sha256(data: Buffer): Buffer {
  return oneShot ? (oneShot('sha256', data, 'buffer') as Buffer) : createHash('sha256').update(data).digest();
}

/** base64(HMAC-SHA256(key, message)). */
export function hmacSha256Base64(key: HmacKey, message: string): string {
  const inner = sha256(Buffer.concat([key.inner, Buffer.from(message, 'utf8')]));
  const outer = Buffer.concat([key.outer, inner]);
  return oneShot ? (oneShot('sha256', outer, 'base64') as string) : createHash('sha256').update(outer).digest('base64');
}
