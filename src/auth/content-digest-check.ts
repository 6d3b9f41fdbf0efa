/** @module auth/content-digest-check Parses an RFC 9530 Content-Digest field and checks it against a body. */
import { createHash } from 'node:crypto';
import { parseDictionary } from 'structured-headers';
import { HttpError } from '../errors/http-error.js';
import { safeEqual } from './safe-equal.js';

// A Map, not an object literal: a member named `constructor` must not find Object.prototype's.
const SUPPORTED = new Map([['sha-256', 'sha256'], ['sha-512', 'sha512']]);

export interface ParsedDigest {
  algorithm: string;
  value: Buffer;
}

/**
 * The digests in a Content-Digest value that roa can check; throws 400 when malformed or none
 * supported. The field is a Structured Field Dictionary (RFC 9530 §2, RFC 9651 §3.2), parsed by
 * `structured-headers`: a repeated key keeps its last value, and parameters (which RFC 9530
 * defines none of) and members of algorithms roa does not know may hold any valid item.
 */
export function parseContentDigest(field: string): ParsedDigest[] {
  let dict: ReturnType<typeof parseDictionary>;
  try {
    dict = parseDictionary(field);
  } catch {
    throw malformed();
  }
  const out: ParsedDigest[] = [];
  for (const [algorithm, [value]] of dict) {
    // RFC 9530 §2: recipients ignore algorithms they do not support.
    if (!SUPPORTED.has(algorithm)) continue;
    // A supported algorithm's digest is a Byte Sequence (RFC 9651 §3.3.5); anything else is malformed.
    if (!(value instanceof ArrayBuffer)) throw malformed();
    out.push({ algorithm, value: Buffer.from(value) });
  }
  if (out.length === 0) {
    throw new HttpError(400, 'Content-Digest has no supported algorithm (sha-256, sha-512)', {
      code: 'ROA_ERR_UNSUPPORTED_CONTENT_DIGEST',
      // RFC 9530 §4: Want-Content-Digest tells the client what we accept.
      headers: { 'Want-Content-Digest': 'sha-256=10, sha-512=3' },
    });
  }
  return out;
}

/** Throws 400 unless every supported digest matches the body. */
export function checkContentDigest(digests: ParsedDigest[], body: Uint8Array): void {
  for (const d of digests) {
    const actual = createHash(SUPPORTED.get(d.algorithm)!).update(body).digest();
    if (!safeEqual(actual, d.value)) {
      throw new HttpError(400, 'Content-Digest does not match the body', { code: 'ROA_ERR_CONTENT_DIGEST_MISMATCH' });
    }
  }
}

function malformed(): HttpError {
  return new HttpError(400, 'Malformed Content-Digest', { code: 'ROA_ERR_MALFORMED_CONTENT_DIGEST' });
}
