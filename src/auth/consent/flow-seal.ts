/**
 * @module auth/consent/flow-seal
 * What a sign-in page must remember between showing the form and receiving it, carried by the page
 * itself in a hidden field: the values, an expiry and an HMAC over both and a purpose, so the server
 * keeps no session state and any instance sharing the key can take the answer.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** How long a sealed flow is accepted by default: long enough to type a password, no longer. */
export const DEFAULT_FLOW_TTL_MS = 10 * 60_000;

/** The values a flow carries: strings only, so the sealed form is plain JSON. */
export type FlowValues = Record<string, string>;

export interface FlowSealOptions {
  /** How long a sealed flow stays valid (default 10 minutes). */
  ttlMs?: number;
  /** Clock (ms epoch); tests move it. */
  now?: () => number;
}

/**
 * The key sealing flows, derived (HKDF-SHA256) from the server key every instance already shares
 * (`--secret-key-file` / `ROA_SECRET_KEY`), so no new setting is needed and the key encrypting HMAC
 * secrets is never used for anything else directly.
 * @example
 *   const seal = new FlowSeal(consentKey(loadServerKey().key));
 */
export function consentKey(serverKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), 'roa consent flow seal v1', 32));
}

/**
 * Seals and opens flow state: `base64url(JSON) "." base64url(HMAC-SHA256)`. The purpose (e.g.
 * `oauth2-authorize`, `oauth1-authorize`) is part of the MAC, so a flow sealed for one page is
 * refused by another.
 * @example
 *   const seal = new FlowSeal(key);
 *   const hidden = seal.seal('oauth2-authorize', { client_id: 'app', state: 'xyz' });
 *   seal.open('oauth2-authorize', hidden); // { client_id: 'app', state: 'xyz' }, or undefined once expired or altered
 */
export class FlowSeal {
  private readonly key: Buffer;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(key: Buffer, options: FlowSealOptions = {}) {
    if (key.length < 32) throw new RangeError('FlowSeal: the key must have at least 32 bytes');
    this.key = key;
    this.ttlMs = options.ttlMs ?? DEFAULT_FLOW_TTL_MS;
    if (!(this.ttlMs > 0)) throw new RangeError(`FlowSeal: ttlMs must be positive, got ${this.ttlMs}`);
    this.now = options.now ?? Date.now;
  }

  seal(purpose: string, values: FlowValues): string {
    const body = Buffer.from(JSON.stringify({ exp: this.now() + this.ttlMs, v: values })).toString('base64url');
    return `${body}.${this.mac(purpose, body)}`;
  }

  /** The values, or undefined when the seal is malformed, altered, for another purpose or expired. */
  open(purpose: string, sealed: string): FlowValues | undefined {
    const dot = sealed.indexOf('.');
    if (dot <= 0) return undefined;
    const body = sealed.slice(0, dot);
    const given = Buffer.from(sealed.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.mac(purpose, body), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!isSealedBody(parsed) || parsed.exp <= this.now()) return undefined;
    return parsed.v;
  }

  private mac(purpose: string, body: string): string {
    return createHmac('sha256', this.key).update(purpose).update('\0').update(body).digest('base64url');
  }
}

function isSealedBody(x: unknown): x is { exp: number; v: FlowValues } {
  if (typeof x !== 'object' || x === null) return false;
  const { exp, v } = x as { exp?: unknown; v?: unknown };
  if (typeof exp !== 'number' || typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  return Object.values(v).every((s) => typeof s === 'string');
}
