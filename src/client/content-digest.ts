/** @module client/content-digest RFC 9530 `Content-Digest` values (sha-256, sha-512). */
import { createHash } from 'node:crypto';

export type DigestAlgorithm = 'sha-256' | 'sha-512';

/**
 * The Content-Digest field value for a body: a Structured Field Dictionary (RFC 8941 §3.2) with one
 * Byte Sequence member, e.g. `sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:` (RFC 9530 §2).
 * @example
 *   contentDigest('{"a":1}') // 'sha-256=:...:'
 */
export function contentDigest(body: string | Uint8Array, algorithm: DigestAlgorithm = 'sha-256'): string {
  const hash = createHash(algorithm === 'sha-256' ? 'sha256' : 'sha512').update(body).digest('base64');
  return `${algorithm}=:${hash}:`;
}
