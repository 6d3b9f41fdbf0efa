/**
 * @module auth/hmac-sha256
 * HMAC-SHA256 (RFC 2104) for the request-signing hot path, as two one-shot `crypto.hash` calls over
 * buffers that are reused by every signature.
 *
 * Why not `createHmac`: a request signature covers a few dozen bytes, and an Hmac object per request
 * (its construction, `update`, `digest`) costs more than hashing them. `crypto.hash` over a Buffer
 * is one native call; here each signature is two of them, with the key's two padded blocks copied
 * in front of the message and of the inner digest (RFC 2104 §2), and no allocation but the two
 * digests. It measured faster per signature than both `createHmac` and the SHA-256 in plain JS this
 * module held before (figures in bench/RESULTS.md's git history).
 *
 * OpenSSL's SHA-256 has no branch that depends on key or message bytes; lengths are public.
 */
import { createHash, createHmac } from 'node:crypto';
import { oneShotHash, type OneShotHash } from './one-shot-hash.js';

/** `crypto.hash` is there on every node roa supports (engines: >= 20.12). */
const hash = oneShotHash as OneShotHash;

const BLOCK = 64;
const DIGEST = 32;
/** Messages up to this many bytes are written into the shared buffer; longer ones get their own. */
const MESSAGE_ROOM = 1024;


/** A secret prepared for repeated HMAC-SHA256 computations: its padded blocks (RFC 2104 §2). */
export interface HmacKey {
  /** The key XOR ipad (64 bytes). */
  readonly ipad: Uint8Array;
  /** The key XOR opad (64 bytes). */
  readonly opad: Uint8Array;
  /** The key itself, for messages too long for the shared buffer (createHmac). */
  readonly key: Uint8Array;
}

/** Pads (and, when longer than a block, first hashes) the key, as RFC 2104 §2 says. */
export function prepareHmacKey(secret: string | Uint8Array): HmacKey {
  const raw: Uint8Array = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  const key: Uint8Array = raw.length > BLOCK ? createHash('sha256').update(raw).digest() : Uint8Array.from(raw);
  const ipad = new Uint8Array(BLOCK).fill(0x36);
  const opad = new Uint8Array(BLOCK).fill(0x5c);
  for (let i = 0; i < key.length; i++) {
    ipad[i]! ^= key[i]!;
    opad[i]! ^= key[i]!;
  }
  return { ipad, opad, key };
}

/** ipad block + message, for the inner hash (the module is single-threaded: one is enough). */
const inner = Buffer.alloc(BLOCK + MESSAGE_ROOM);
/** opad block + inner digest, for the outer hash. */
const outer = Buffer.alloc(BLOCK + DIGEST);
/** `inner` cut to ipad + a message of n bytes, per n: a subarray per call would be an allocation. */
const innerViews: Buffer[] = [];

/**
 * Writes `message` after the ipad block as UTF-8; answers the bytes written, or -1 when it does
 * not fit. ASCII (every request line) is copied character by character, no encoder call.
 */
function writeMessage(message: string): number {
  const length = message.length;
  if (length > MESSAGE_ROOM) return -1;
  let i = 0;
  for (; i < length; i++) {
    const c = message.charCodeAt(i);
    if (c > 0x7f) break;
    inner[BLOCK + i] = c;
  }
  if (i === length) return length;
  if (Buffer.byteLength(message, 'utf8') > MESSAGE_ROOM) return -1;
  return inner.write(message, BLOCK, 'utf8');
}

/** base64(HMAC-SHA256(key, message)), the message encoded as UTF-8. */
export function hmacSha256Base64(key: HmacKey, message: string): string {
  const length = writeMessage(message);
  if (length < 0) return createHmac('sha256', key.key).update(message, 'utf8').digest('base64');
  inner.set(key.ipad, 0);
  const view = (innerViews[length] ??= inner.subarray(0, BLOCK + length));
  outer.set(key.opad, 0);
  outer.write(hash('sha256', view, 'latin1'), BLOCK, 'latin1');
  return hash('sha256', outer, 'base64');
}
