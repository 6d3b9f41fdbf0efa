/** @module auth/content-digest-check Parses an RFC 9530 Content-Digest field and checks it against a body. */
import { createHash } from 'node:crypto';
import { HttpError } from '../errors/http-error.js';
import { safeEqual } from './safe-equal.js';

const SUPPORTED: Record<string, string> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };
// One Dictionary member (RFC 8941 §3.2) whose value is a Byte Sequence (§3.3.5). Parameters are legal
// syntax and carry nothing RFC 9530 defines, so they are allowed and ignored (bare items without commas).
const MEMBER_RE = /^([a-z*][a-z0-9_.*-]*)=:([A-Za-z0-9+/]*={0,2}):(?:; *[a-z*][a-z0-9_.*-]*(?:=(?:"(?:[^"\\,]|\\["\\])*"|[^;,"\s]+))?)*$/;

export interface ParsedDigest {
  algorithm: string;
  value: Buffer;
}

/** The digests in a Content-Digest value that roa can check; throws 400 when malformed or none supported. */
export function parseContentDigest(field: string): ParsedDigest[] {
  const out: ParsedDigest[] = [];
  for (const raw of field.split(',')) {
    const m = MEMBER_RE.exec(raw.trim());
    if (m === null) throw new HttpError(400, 'Malformed Content-Digest', { code: 'ROA_ERR_MALFORMED_CONTENT_DIGEST' });
    // RFC 9530 §2: recipients ignore algorithms they do not support.
    if (SUPPORTED[m[1]!] !== undefined) out.push({ algorithm: m[1]!, value: Buffer.from(m[2]!, 'base64') });
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
    const actual = createHash(SUPPORTED[d.algorithm]!).update(body).digest();
    if (!safeEqual(actual, d.value)) {
      throw new HttpError(400, 'Content-Digest does not match the body', { code: 'ROA_ERR_CONTENT_DIGEST_MISMATCH' });
    }
  }
}
