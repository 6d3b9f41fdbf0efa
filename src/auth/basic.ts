/**
 * @module auth/basic
 * HTTP Basic authentication (RFC 7617) against scrypt password hashes, with a short-lived cache of
 * verified credentials so a busy client is not bounded by scrypt on every request.
 */
import { hash, randomBytes } from 'node:crypto';
import type { Request } from '../http/request.js';
import type { Store, User } from '../storage/store.js';
import { invalidCredentials, malformedCredentials } from './errors.js';
import { dummyPasswordHash, verifyPassword } from './passwords.js';
import { NOT_LOADED, RecordCache } from './user-cache.js';
import { safeEqual as defaultSafeEqual, type SafeEqual } from './safe-equal.js';
import type { AuthScheme, Caller } from './scheme.js';
import { sourceOf } from './source-address.js';
import type { AttemptThrottle } from './throttle.js';
import { ThrottledChecks } from './throttled-check.js';
import { HttpError } from '../errors/http-error.js';
import { BoundedMap } from '../util/bounded-map.js';

export interface BasicSchemeOptions {
  /** How long a user record is reused before the store is asked again (default 1000 ms; 0 = every request). */
  recordTtlMs?: number;
  store: Pick<Store, 'getUser'>;
  realm?: string;
  /** How long a verified user:password stays cached (ms). Default 60 000; 0 disables the cache. */
  cacheTtlMs?: number;
  /** Most cached entries; the oldest is evicted first. Default 1000. */
  cacheMaxEntries?: number;
  /** Injected for tests; defaults to the shared constant-time `safeEqual`. */
  safeEqual?: SafeEqual;
  /**
   * Counts password attempts per user name (subject `user:<name>`, shared with the OAuth password
   * grant when both get the same throttle) and source address, before each scrypt run; past its
   * limit a request answers 429 without one. Default: none.
   */
  throttle?: AttemptThrottle;
  now?: () => number;
}

export interface BasicCredentials {
  userId: string;
  password: string;
}

interface CacheEntry {
  name: string;
  /** The throttle's source the password was verified from: entries are per source (see forgetUser). */
  source: string;
  /** The stored hash the password verified against: a changed hash invalidates the entry. */
  passwordHash: string;
  expiresAt: number;
}

// RFC 7617 §2 / RFC 9110 §11.2: `Basic` 1*SP token68; Basic uses plain base64 (with padding).
const BASIC_RE = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;
// RFC 7617 §2: user-id and password MUST NOT contain control characters.
const CONTROL_RE = /[\u0000-\u001f\u007f]/;
// One decoder for every request: with `fatal`, a non-streaming decode keeps no state between calls.
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
const PRINTABLE_ASCII_RE = /^[\x20-\x7e]*$/;

/**
 * Decodes `Authorization: Basic ...`. Returns undefined when the header is not Basic; throws a 400
 * HttpError when it is Basic but malformed (bad base64, not UTF-8, no colon, control characters).
 * A malformed header is a 400 rather than a 401 because no other password would make it valid.
 */
export function parseBasic(header: string | undefined): BasicCredentials | undefined {
  if (header === undefined || !/^basic(?: |$)/i.test(header)) return undefined;
  const m = BASIC_RE.exec(header);
  if (m === null || m[1]!.length % 4 !== 0) throw malformedCredentials('Malformed Basic credentials');
  const bytes = Buffer.from(m[1]!, 'base64');
  let decoded: string;
  try {
    // RFC 7617 §2.1: roa announces charset="UTF-8"; invalid UTF-8 is rejected rather than guessed at.
    decoded = STRICT_UTF8.decode(bytes);
  } catch {
    throw malformedCredentials('Basic credentials are not UTF-8');
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw malformedCredentials('Basic credentials lack a user-id');
  const userId = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (CONTROL_RE.test(decoded)) throw malformedCredentials('Basic credentials contain control characters');
  // ASCII is already in NFC; only other user-ids pay for ICU's normalisation.
  return { userId: PRINTABLE_ASCII_RE.test(userId) ? userId : userId.normalize('NFC'), password };
}

/**
 * The Basic scheme (RFC 7617).
 * @example
 *   const basic = new BasicScheme({ store });
 *   new Authenticator([basic]);
 */
export class BasicScheme implements AuthScheme {
  readonly name = 'Basic';
  private readonly store: Pick<Store, 'getUser'>;
  private readonly realm: string;
  private readonly ttl: number;
  private readonly maxEntries: number;
  private readonly equal: SafeEqual;
  private readonly now: () => number;
  private readonly checks: ThrottledChecks;
  private readonly cache: BoundedMap<string, CacheEntry>;
  private readonly records: RecordCache;
  // Cache keys are HMAC-SHA-256 under a per-process key: a memory dump then holds no fast, unsalted
  // hash of any password that could be brute-forced offline.
  private readonly cacheKeyText = randomBytes(32).toString('base64');

  constructor(options: BasicSchemeOptions) {
    this.store = options.store;
    this.records = new RecordCache(options.store, options.recordTtlMs, options.now ?? Date.now);
    this.realm = options.realm ?? 'roa';
    this.ttl = options.cacheTtlMs ?? 60_000;
    this.maxEntries = options.cacheMaxEntries ?? 1000;
    this.cache = new BoundedMap(this.maxEntries >= 1 ? Math.min(Math.floor(this.maxEntries), Number.MAX_SAFE_INTEGER) : 1);
    this.equal = options.safeEqual ?? defaultSafeEqual;
    this.checks = new ThrottledChecks(options.throttle);
    this.now = options.now ?? Date.now;
    if (!/^[\x20-\x7e]*$/.test(this.realm) || this.realm.includes('"')) throw new Error('BasicScheme: realm must be printable ASCII without quotes');
  }

  challenge(): string {
    return `Basic realm="${this.realm}", charset="UTF-8"`;
  }

  matches(req: Request): boolean {
    const h = req.headers.authorization;
    return h !== undefined && /^basic(?: |$)/i.test(h);
  }

  async authenticate(req: Request): Promise<Caller> {
    return this.authenticateNow(req);
  }

  /** Without a promise when the user's record and the verification are both cached (the hot path). */
  authenticateNow(req: Request): Caller | Promise<Caller> {
    const creds = parseBasic(req.headers.authorization);
    if (creds === undefined) throw invalidCredentials(this.challenge());
    const source = sourceOf(req);
    const key = this.keyOf(creds, source);
    const peeked = this.records.peekUser(creds.userId);
    if (peeked !== NOT_LOADED) {
      const cached = this.cachedCaller(key, peeked);
      if (cached !== undefined) return cached;
    }
    return this.verify(creds, source, key, peeked);
  }

  /** The caller when this password was verified recently for the same record; a stale entry is dropped. */
  private cachedCaller(key: string, user: User | undefined): Caller | undefined {
    const hit = this.cache.get(key);
    if (hit === undefined) return undefined;
    if (hit.expiresAt > this.now() && user !== undefined && user.passwordHash === hit.passwordHash && user.name === hit.name) {
      return { name: user.name, role: user.role, scopes: null, scheme: 'basic' };
    }
    this.cache.delete(key);
    return undefined;
  }

  private async verify(creds: BasicCredentials, source: string, key: string, peeked: User | undefined | typeof NOT_LOADED): Promise<Caller> {
    let user: User | undefined;
    if (peeked === NOT_LOADED) {
      user = await this.records.getUser(creds.userId);
      const cached = this.cachedCaller(key, user);
      if (cached !== undefined) return cached;
    } else {
      user = peeked;
    }
    // Unknown users are verified against a dummy hash: same scrypt cost, same answer (no enumeration).
    const stored = user?.passwordHash ?? (await dummyPasswordHash());
    // Only here, past the caches: a verified password in use is never slowed down by guessing. The
    // attempt is counted before scrypt runs, so racing guesses cannot outrun the limit; concurrent
    // requests with the same credentials from the same source share one count and one scrypt run.
    const outcome = await this.checks.run('user:' + creds.userId, source, key + '\0' + stored, () => verifyPassword(creds.password, stored, this.equal));
    if (outcome.wait > 0) {
      this.forgetUser(creds.userId, source);
      throw new HttpError(429, 'Too many failed attempts for this user; retry later', { code: 'ROA_ERR_TOO_MANY_ATTEMPTS', headers: { 'Retry-After': String(outcome.wait) } });
    }
    if (!outcome.ok || user === undefined) {
      this.forgetUser(creds.userId, source);
      throw invalidCredentials(this.challenge());
    }
    this.remember(key, { name: user.name, source, passwordHash: user.passwordHash, expiresAt: this.now() + this.ttl });
    return { name: user.name, role: user.role, scopes: null, scheme: 'basic' };
  }

  /** Drops every cached verification (e.g. after an administrative password change elsewhere). */
  clearCache(): void {
    this.cache.clear();
    this.records.clear();
  }

  /**
   * Drops the user's cached verifications from this source after a wrong password or a throttled
   * attempt. Otherwise, while the user is locked out there, a guess equal to the cached password
   * would answer 200 and every other guess 429 (no scrypt run, so at full speed): an oracle for the
   * password. Once dropped, the right password too goes through the throttle and gets its 429 until
   * the lock ends. Entries are per source (the source is in the cache key), so the user's own
   * verification from another address never answers for a locked one, and guesses from elsewhere
   * do not flush it. Failures counted elsewhere (the password grant, another instance) reach this
   * cache with the next guess from that source, which the shared throttle answers 429.
   */
  private forgetUser(name: string, source: string): void {
    if (this.cache.size === 0) return;
    for (const [key, entry] of this.cache) if (entry.name === name && entry.source === source) this.cache.delete(key);
  }

  private keyOf(creds: BasicCredentials, source: string): string {
    // A one-shot keyed digest (secret prefix): no Hmac object per request on the hot path.
    return hash('sha256', this.cacheKeyText + creds.userId + '\0' + source + '\0' + creds.password, 'base64url');
  }

  private remember(key: string, entry: CacheEntry): void {
    if (this.ttl <= 0 || this.maxEntries <= 0) return;
    this.cache.delete(key); // a renewed entry goes last, as the newest
    this.cache.set(key, entry);
  }
}
