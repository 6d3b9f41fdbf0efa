/**
 * @module auth/one-shot-hash
 * `crypto.hash`: a digest in one native call, without the Hash object `createHash` allocates, which
 * costs more than hashing a token's or a request signature's few dozen bytes.
 */
import crypto from 'node:crypto';

/** Strings hash as UTF-8. Typed here because @types/node leaves `latin1` out of its output encodings. */
export type OneShotHash = (algorithm: string, data: string | Uint8Array, outputEncoding: 'latin1' | 'base64' | 'base64url') => string;

export const oneShotHash: OneShotHash = (crypto as unknown as { hash: OneShotHash }).hash;
