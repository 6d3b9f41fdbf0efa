/**
 * @module auth/one-shot-hash
 * `crypto.hash` (Node ≥ 20.12): a digest in one native call, without a Hash object, which costs
 * more than hashing a token or a request signature's few dozen bytes. Undefined on the Node 20
 * releases before it, where callers fall back to `createHash` / `createHmac`.
 */
import crypto from 'node:crypto';

/** Strings hash as UTF-8. Typed here because @types/node leaves `latin1` out of its output encodings. */
export type OneShotHash = (algorithm: string, data: string | Uint8Array, outputEncoding: 'latin1' | 'base64' | 'base64url') => string;

export const oneShotHash = (crypto as unknown as { hash?: OneShotHash }).hash;
