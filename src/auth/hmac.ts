/**
 * @module auth/hmac
 * roa's `hmac` scheme (header `Authentication`): a minimal form and a replay-protected form with Date
 * and nonce, optional body integrity through Content-Digest (RFC 9530). See `client/string-to-sign`.
 */
import { randomBytes } from 'node:crypto';
import { hmacSha256Base64, prepareHmacKey, type HmacKey } from './hmac-sha256.js';
import { formatStringToSign, formConflict } from '../client/string-to-sign.js';
import { HttpError } from '../errors/http-error.js';
import { DEFAULT_BODY_LIMIT, readRawBody, wireBodyOf } from '../http/body.js';
import type { Request } from '../http/request.js';
import { SAFE_METHODS } from '../http/safe-methods.js';
import type { Store, User } from '../storage/store.js';
import { checkContentDigest, parseContentDigest, type ParsedDigest } from './content-digest-check.js';
import { invalidCredentials, malformedCredentials } from './errors.js';
import { parseHmacHeader, parseImfFixdate, type ParsedHmacHeader } from './hmac-header.js';
import type { NonceStore } from './nonce-store.js';
import { safeEqual as defaultSafeEqual, type SafeEqual } from './safe-equal.js';
import type { AuthScheme, Caller } from './scheme.js';
import { openHmacSecret, sealHmacSecret, type SecretBox } from './secret-box.js';
import { NOT_LOADED, RecordCache } from './user-cache.js';
import { BoundedMap } from '../util/bounded-map.js';

export interface HmacSchemeOptions {
  /** How long a user record is reused before the store is asked again (default 1000 ms; 0 = every request). */
  recordTtlMs?: number;
  store: Pick<Store, 'getUser'>;
  /** Decrypts users' HMAC secrets (stored sealed by `sealHmacSecret`). */
  box: SecretBox;
  nonces: NonceStore;
  realm?: string;
  /** Production hides diagnostics and, by default, refuses the minimal form for unsafe methods. Default: NODE_ENV === 'production'. */
  production?: boolean;
  /** Accept the replayable minimal form for unsafe methods (RFC 9110 §9.2.1). Default: !production. */
  allowMinimalForUnsafe?: boolean;
  /** Largest accepted distance between the Date header and the server clock. Default 10 minutes. */
  clockSkewMs?: number;
  /** Largest body read to check a Content-Digest (the resources' default limit, 100 KiB, unless set). */
  bodyLimit?: number;
  safeEqual?: SafeEqual;
  /** Reads the raw body (cached on req.rawBody for the body parsers); default http/body's readRawBody. */
  readBody?: (req: Request, options: { limit: number }) => Promise<Buffer>;
  now?: () => number;
}

const HMAC_SCHEME_RE = /^hmac(?: |$)/i;
/**
 * The hmac scheme. Verification order (issue 4): parse strictly, load the secret (a dummy one for unknown
 * users), check the Date window, check the digest (length, then constant time), check Content-Digest
 * against the body, and only then consume the nonce — so a forged request never burns a nonce.
 * @example
 *   const hmac = new HmacScheme({ store, box: new SecretBox(loadServerKey().key), nonces: new StoreNonceStore(store) });
 */
export class HmacScheme implements AuthScheme {
  readonly name = 'hmac';
  private readonly o: Required<Omit<HmacSchemeOptions, 'realm' | 'recordTtlMs'>>;
  private readonly realm: string;
  private readonly challengeText: string;
  // Unknown users are checked against this, so they cost one HMAC and answer exactly like a bad digest.
  private readonly dummySecret = randomBytes(32).toString('base64url');
  private readonly dummyBlob: string;

  constructor(options: HmacSchemeOptions) {
    const production = options.production ?? process.env.NODE_ENV === 'production';
    this.realm = options.realm ?? 'roa';
    this.challengeText = `hmac realm="${this.realm}"`;
    this.o = {
      store: options.store,
      box: options.box,
      nonces: options.nonces,
      production,
      allowMinimalForUnsafe: options.allowMinimalForUnsafe ?? !production,
      clockSkewMs: options.clockSkewMs ?? 10 * 60_000,
      bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
      safeEqual: options.safeEqual ?? defaultSafeEqual,
      readBody: options.readBody ?? readRawBody,
      now: options.now ?? Date.now,
    };
    this.records = new RecordCache(options.store, options.recordTtlMs, this.o.now);
    // Decrypted for unknown users too, so a known user costs no measurable extra work.
    this.dummyBlob = sealHmacSecret(this.o.box, '\0dummy', this.dummySecret);
    if (!(this.o.clockSkewMs > 0)) throw new Error('HmacScheme: clockSkewMs must be positive');
    if (!/^[\x20-\x7e]*$/.test(this.realm) || this.realm.includes('"')) throw new Error('HmacScheme: realm must be printable ASCII without quotes');
  }

  /**
   * Decrypted secrets and their prepared HMAC keys, per user name; an entry is used only while the
   * sealed blob is the same (a changed secret is a new blob). AES-GCM per request costs more than
   * the rest of the check. The dummy is cached alike, so unknown and known users take the same path.
   */
  private readonly secrets = new BoundedMap<string, { blob: string; key: HmacKey }>(10_000);
  private readonly records: RecordCache;

  private keyFor(name: string, blob: string): HmacKey {
    const hit = this.secrets.get(name);
    // The record cache hands out the same blob string while the record lives: usually one pointer compare.
    if (hit !== undefined && hit.blob === blob) return hit.key;
    const key = prepareHmacKey(openHmacSecret(this.o.box, name, blob));
    this.secrets.set(name, { blob, key });
    return key;
  }

  challenge(): string {
    return this.challengeText;
  }

  /** What a refusal tells the client outside production (built only when a check fails: toUTCString is not free). */
  private diagnostics(stringToSign: string | null, dateHeader: string | undefined, now: number, dateMs: number | undefined): Record<string, unknown> | undefined {
    if (this.o.production) return undefined;
    return {
      stringToSign,
      receivedDate: dateHeader ?? null,
      serverTime: new Date(now).toUTCString(),
      skewSeconds: dateMs === undefined ? null : Math.round((now - dateMs) / 1000),
    };
  }

  /**
   * A 401 from the header parser (a bad nonce) with the clock half of the diagnostics: no string to
   * sign exists for a nonce no signer may use, but a wrong clock is often why a client is debugging.
   */
  private withClock(err: unknown, dateHeader: string | undefined): unknown {
    if (this.o.production || !(err instanceof HttpError) || err.status !== 401) return err;
    return invalidCredentials(this.challenge(), this.diagnosticsBeforeParse(null, dateHeader), err.message);
  }

  /** Diagnostics for a refusal that comes before the Date was parsed: it is parsed here, for the skew. */
  private diagnosticsBeforeParse(stringToSign: string | null, dateHeader: string | undefined): Record<string, unknown> | undefined {
    return this.diagnostics(stringToSign, dateHeader, this.o.now(), dateHeader === undefined ? undefined : parseImfFixdate(dateHeader));
  }

  matches(req: Request): boolean {
    const h = req.headers.authentication;
    return typeof h === 'string' && HMAC_SCHEME_RE.test(h);
  }

  async authenticate(req: Request): Promise<Caller> {
    return this.authenticateNow(req);
  }

  /**
   * Synchronous (no promise) for the minimal form of a user whose record is cached: nothing in it
   * waits. A promise when the record must be read, a Content-Digest needs the body, or a nonce
   * must be recorded. Throws or rejects with the refusal.
   */
  authenticateNow(req: Request): Caller | Promise<Caller> {
    const header = req.headers.authentication;
    if (typeof header !== 'string') throw invalidCredentials(this.challenge());
    // Sign the method on the wire: methodOverride() may have rewritten req.method already.
    const method = req.originalMethod ?? req.method ?? 'GET';
    const unsafe = !SAFE_METHODS.has(method) || !SAFE_METHODS.has(req.method ?? 'GET');
    const target = req.originalUrl || req.url || '/';

    // 1. Parse strictly.
    const dateHeader = req.headers.date;
    let cred: ParsedHmacHeader;
    try {
      cred = parseHmacHeader(header, this.challenge());
    } catch (err) {
      throw this.withClock(err, dateHeader);
    }
    let dateMs: number | undefined;
    if (cred.nonce !== undefined) {
      if (dateHeader === undefined) throw malformedCredentials('The replay-protected hmac form requires a Date header');
      dateMs = parseImfFixdate(dateHeader);
      if (dateMs === undefined) throw malformedCredentials('Date must be an IMF-fixdate (RFC 9110 §5.6.7)');
    } else if (unsafe && !this.o.allowMinimalForUnsafe) {
      const minimal = formatStringToSign({ method, target, contentDigest: contentDigestOf(req) });
      throw invalidCredentials(this.challenge(), this.diagnosticsBeforeParse(minimal, dateHeader), 'Unsafe methods require the replay-protected hmac form (Date and nonce)');
    }
    const contentDigestField = contentDigestOf(req);
    let digests: ParsedDigest[] | undefined;
    if (contentDigestField !== undefined) digests = parseContentDigest(contentDigestField);
    const parts = { method, target, date: cred.nonce === undefined ? undefined : dateHeader, nonce: cred.nonce, contentDigest: contentDigestField };
    // A string that could be read as another form is refused before any digest is computed: a
    // signature made for one form must never verify in another (issue 24).
    const conflict = formConflict(parts, isContentDigestField);
    if (conflict !== undefined) throw invalidCredentials(this.challenge(), this.diagnosticsBeforeParse(null, dateHeader), conflict);
    const stringToSign = formatStringToSign(parts);
    const now = this.o.now();
    // 2. Load the secret; unknown users and users without a secret get the dummy.
    const peeked = this.records.peekUser(cred.user);
    if (peeked === NOT_LOADED) {
      return this.records.getUser(cred.user).then((user) => this.verify(req, cred, stringToSign, dateHeader, dateMs, digests, now, user));
    }
    return this.verify(req, cred, stringToSign, dateHeader, dateMs, digests, now, peeked);
  }

  /** Steps 2–6 with the user record at hand. */
  private verify(
    req: Request, cred: ParsedHmacHeader, stringToSign: string, dateHeader: string | undefined, dateMs: number | undefined,
    digests: ParsedDigest[] | undefined, now: number, user: User | undefined,
  ): Caller | Promise<Caller> {
    let key: HmacKey;
    if (user?.hmacSecret == null) {
      // '\0' cannot start a user name, so the dummy's entry never collides with a user's.
      key = this.keyFor('\0dummy', this.dummyBlob);
    } else {
      try {
        key = this.keyFor(user.name, user.hmacSecret);
      } catch (err) {
        // The server key changed or the row is corrupt: an operator problem, never the client's.
        throw new HttpError(500, 'HMAC secret cannot be decrypted', { code: 'ROA_ERR_HMAC_SECRET_UNREADABLE', expose: false, cause: err });
      }
    }

    // 3. Date window.
    if (dateMs !== undefined && Math.abs(now - dateMs) > this.o.clockSkewMs) {
      throw invalidCredentials(this.challenge(), this.diagnostics(stringToSign, dateHeader, now, dateMs), 'Date is outside the accepted clock skew');
    }

    // 4. Digest: safeEqual checks lengths first, then compares in constant time.
    const expected = hmacSha256Base64(key, stringToSign);
    const ok = this.o.safeEqual(cred.digest, expected);
    if (!ok || user === undefined || user.hmacSecret == null) throw invalidCredentials(this.challenge(), this.diagnostics(stringToSign, dateHeader, now, dateMs));

    if (digests !== undefined) return this.verifyBodyAndNonce(req, cred, stringToSign, dateHeader, dateMs, digests, now, user);
    if (cred.nonce === undefined || dateMs === undefined) return callerOf(user);
    // The usual replay-protected request has no body to wait for: straight to the nonce store.
    return this.spendNonce(cred, stringToSign, dateHeader, dateMs, now, user);
  }

  /** Step 5, body integrity, which waits for the body; then step 6 when the request carries a nonce. */
  private async verifyBodyAndNonce(
    req: Request, cred: ParsedHmacHeader, stringToSign: string, dateHeader: string | undefined, dateMs: number | undefined,
    digests: ParsedDigest[], now: number, user: User,
  ): Promise<Caller> {
    // Only for authenticated requests, so strangers cannot make us read bodies.
    // RFC 9530 §2: the digest covers the content as sent, i.e. still content-coded (gzip etc.).
    const decoded = await this.o.readBody(req, { limit: this.o.bodyLimit });
    checkContentDigest(digests, wireBodyOf(req) ?? decoded);
    if (cred.nonce !== undefined && dateMs !== undefined) return this.spendNonce(cred, stringToSign, dateHeader, dateMs, now, user);
    return callerOf(user);
  }

  /**
   * Step 6: only now spend the nonce, so a forged request never burns a legitimate client's nonce.
   * A plain promise chain, not an async function: this runs for every replay-protected request.
   */
  private spendNonce(cred: ParsedHmacHeader, stringToSign: string, dateHeader: string | undefined, dateMs: number, now: number, user: User): Promise<Caller> {
    // Remember the nonce for as long as its Date stays acceptable; after that the Date check refuses it.
    const ttl = Math.max(1000, dateMs + this.o.clockSkewMs - now + 1000);
    let consumed: Promise<boolean>;
    try {
      consumed = this.o.nonces.consume(`hmac:${user.name}:${cred.nonce}`, ttl);
    } catch (err) {
      return Promise.reject(nonceStoreUnavailable(err));
    }
    return consumed.then(
      (fresh) => {
        if (!fresh) throw invalidCredentials(this.challenge(), this.diagnostics(stringToSign, dateHeader, now, dateMs), 'Nonce already used');
        return callerOf(user);
      },
      (err: unknown) => {
        throw nonceStoreUnavailable(err);
      },
    );
  }
}

/** The caller a verified hmac request acts as. */
function callerOf(user: User): Caller {
  return { name: user.name, role: user.role, scopes: null, scheme: 'hmac' };
}

/** The store could not answer: fail closed (503), never accept. */
function nonceStoreUnavailable(cause: unknown): HttpError {
  return new HttpError(503, 'Replay protection is unavailable', {
    code: 'ROA_ERR_NONCE_STORE_UNAVAILABLE',
    headers: { 'Retry-After': '5' },
    expose: true,
    cause,
  });
}

/** Whether a value would be accepted as a Content-Digest field (what the forms are kept apart by). */
function isContentDigestField(value: string): boolean {
  try {
    parseContentDigest(value);
    return true;
  } catch {
    return false;
  }
}

/** The Content-Digest field as signed: repeated fields joined as one list (RFC 9110 §5.3). */
function contentDigestOf(req: Request): string | undefined {
  const raw = req.headers['content-digest'];
  return Array.isArray(raw) ? raw.join(', ') : raw;
}
