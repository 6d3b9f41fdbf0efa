/**
 * @module auth/oauth1/verify
 * Verification of one OAuth 1.0a signed request (RFC 5849 §3.2), shared by the scheme that
 * authenticates resource requests and the /oauth1 endpoints: parameters, signature, timestamp,
 * body hash, and only then the nonce, so a forged request never spends a client's nonce.
 */
import { isUtf8 } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { HttpError } from '../../errors/http-error.js';
import { DEFAULT_BODY_LIMIT, hasBody, readRawBody, wireBodyOf } from '../../http/body.js';
import { parseContentType } from '../../http/content-type.js';
import type { Request } from '../../http/request.js';
import { invalidCredentials, malformedCredentials } from '../errors.js';
import type { NonceStore } from '../nonce-store.js';
import { safeEqual as defaultSafeEqual, type SafeEqual } from '../safe-equal.js';
import { baseStringUri, rawQueryOf, signatureBaseString } from './base-string.js';
import type { MaybePromise, OAuth1Consumer, OAuth1TokenSecret } from './credentials.js';
import { oauth1Limits, type OAuth1Limits } from './limits.js';
import { collectParams, isOAuthAuthorization, type CollectedParams, type OAuth1Param, type OAuth1ParamPlace } from './params.js';
import { checkOAuth1Signature, isSignatureMethod, oauthBodyHash, rsaPublicKey, type OAuth1SignatureMethod } from './signature.js';
import { oauthEncode } from './percent-encoding.js';

/** The default accepted distance between `oauth_timestamp` and the server clock: the hmac scheme's 10 minutes. */
export const DEFAULT_OAUTH1_CLOCK_SKEW_MS = 10 * 60_000;

export interface VerifyOAuth1Options<T extends OAuth1TokenSecret> {
  /** The client named by `oauth_consumer_key`; undefined when unknown. */
  consumers: (key: string) => MaybePromise<OAuth1Consumer | undefined>;
  /**
   * The token credentials named by `oauth_token` (temporary ones on /oauth1/token, access ones on
   * resources); undefined when unknown, expired or revoked. Omitted: the request must carry no
   * token (/oauth1/initiate), else 400.
   */
  tokens?: (token: string, consumer: OAuth1Consumer) => MaybePromise<T | undefined>;
  /** Refuse (400, parameter absent) a request without `oauth_token`. Default false. */
  requireToken?: boolean;
  nonces: NonceStore;
  /** The server clock, ms since the epoch (tests inject one). Default Date.now. */
  now?: () => number;
  /** Largest accepted |now − oauth_timestamp| (default 10 minutes, like the hmac scheme). */
  clockSkewMs?: number;
  limits?: Partial<OAuth1Limits>;
  /** Largest form body read for its parameters or an oauth_body_hash (default 100 KiB) → 413. */
  bodyLimit?: number;
  /** WWW-Authenticate challenge of a 401 (default `OAuth realm="roa"`). */
  challenge?: string;
  /** Outside production a refused signature tells the client the base string the server signed. Default NODE_ENV === 'production'. */
  production?: boolean;
  safeEqual?: SafeEqual;
}

/** What a verified request proved. */
export interface VerifiedOAuth1Request<T extends OAuth1TokenSecret> {
  consumer: OAuth1Consumer;
  /** The token credentials of `oauth_token`, when the request carried one. */
  token: T | undefined;
  signatureMethod: OAuth1SignatureMethod;
  /** The protocol parameters by name, decoded: oauth_callback, oauth_verifier, oauth_token, … */
  protocol: ReadonlyMap<string, string>;
  /** Where they were: the Authorization header, the query or the form body. */
  protocolPlace: OAuth1ParamPlace;
  /** Every signed parameter (the request's own among them), decoded. */
  params: readonly OAuth1Param[];
}

/** The OAuth Problem Reporting names (oauth_problem) a refusal carries in its `oauthProblem` extension. */
export type OAuth1Problem =
  | 'parameter_absent' | 'parameter_rejected' | 'version_rejected' | 'signature_method_rejected'
  | 'timestamp_refused' | 'nonce_used' | 'signature_invalid' | 'body_hash_invalid';

/** The parameters every signed request carries (§3.1), checked in this order. */
type RequiredParam = 'oauth_consumer_key' | 'oauth_signature_method' | 'oauth_signature' | 'oauth_timestamp' | 'oauth_nonce';
const TIMESTAMP_RE = /^[0-9]{1,12}$/;
const FORM_TYPE = 'application/x-www-form-urlencoded';
const DEFAULT_CHALLENGE = 'OAuth realm="roa"';
// Unknown clients and tokens are checked against these, so they cost the same work as known ones.
const DUMMY_SECRET = randomBytes(24).toString('base64url');

/**
 * Verifies an OAuth 1.0a signed request and returns its protocol parameters. Refusals are
 * HttpErrors: 400 for a malformed request (§3.2: unsupported parameter or signature method,
 * missing or duplicated parameter, bad encoding, parameters in two places, PLAINTEXT without TLS),
 * 401 with `WWW-Authenticate: OAuth realm="roa"` for an unknown client or token, a bad signature,
 * timestamp or nonce, 413/431 over a limit, 503 when the nonce store cannot answer (fail closed).
 * A form body (read only when the request carries OAuth parameters) stays on `req.rawBody` for
 * the body parsers.
 * @example
 *   // POST /oauth1/token: temporary credentials + verifier
 *   const { consumer, token, protocol } = await verifyOAuth1Request(req, {
 *     consumers: (key) => storage.getConsumer(key),
 *     tokens: (token) => storage.getTemporaryCredentials(token), // { secret, consumerKey, verifier, … }
 *     requireToken: true,
 *     nonces,
 *   });
 *   const verifier = protocol.get('oauth_verifier');
 */
export async function verifyOAuth1Request<T extends OAuth1TokenSecret>(req: Request, options: VerifyOAuth1Options<T>): Promise<VerifiedOAuth1Request<T>> {
  const signed = verifySigned(req, options);
  const checked = isPromise(signed) ? await signed : signed;
  await spendNonce(options.nonces, checked, options.challenge ?? DEFAULT_CHALLENGE);
  return checked.verified;
}

/**
 * `verifyOAuth1Request(req, options).then(then)` in one promise step: what the scheme runs on every
 * signed resource request. Up to the nonce nothing waits unless the request has a form body or a
 * body hash, or the storage answers with a promise; then the nonce store's answer goes straight to
 * `then`, with no async function per layer in between.
 */
export function verifyOAuth1RequestThen<T extends OAuth1TokenSecret, R>(
  req: Request, options: VerifyOAuth1Options<T>, then: (verified: VerifiedOAuth1Request<T>) => R | PromiseLike<R>,
): Promise<R> {
  let signed: CheckedRequest<T> | Promise<CheckedRequest<T>>;
  try {
    signed = verifySigned(req, options);
  } catch (err) {
    return Promise.reject(err);
  }
  const challenge = options.challenge ?? DEFAULT_CHALLENGE;
  if (isPromise(signed)) return signed.then((checked) => spendNonceThen(options.nonces, checked, challenge, then));
  return spendNonceThen(options.nonces, signed, challenge, then);
}

/** A request whose signature (and body hash) verified, with what its nonce is recorded under. */
interface CheckedRequest<T extends OAuth1TokenSecret> {
  verified: VerifiedOAuth1Request<T>;
  nonceKey: string;
  nonceTtlMs: number;
}

/** Everything but the nonce; synchronous (returns or throws) when nothing needs waiting for. */
function verifySigned<T extends OAuth1TokenSecret>(req: Request, options: VerifyOAuth1Options<T>): CheckedRequest<T> | Promise<CheckedRequest<T>> {
  // Most signed requests have no form body: no promise to wait for then.
  if (isFormRequest(req)) return formBodyOf(req, options.bodyLimit ?? DEFAULT_BODY_LIMIT).then((body) => verifyParams(req, options, body));
  return verifyParams(req, options, undefined);
}

/** The parameters collected and checked, the client and token looked up, then the signature. */
function verifyParams<T extends OAuth1TokenSecret>(req: Request, options: VerifyOAuth1Options<T>, body: string | undefined): CheckedRequest<T> | Promise<CheckedRequest<T>> {
  const limits = oauth1Limits(options.limits);
  const authorization = req.headers.authorization;
  const header = authorization !== undefined && isOAuthAuthorization(authorization) ? authorization : undefined;
  const collected = collectParams(header, rawQueryOf(req), body, limits);
  const { protocol } = collected;
  if (collected.protocolPlace === undefined) throw problem400('parameter_absent', 'The request carries no OAuth protocol parameters');
  const p = checkProtocolParams(protocol, options.tokens !== undefined, options.requireToken ?? false);
  if (p.method === 'PLAINTEXT' && !req.secure) {
    // §3.4.4: the secrets travel as they are; only TLS may carry them.
    throw problem400('signature_method_rejected', 'PLAINTEXT signatures are accepted only over TLS (RFC 5849 §3.4.4)');
  }
  if (protocol.has('oauth_body_hash') && body !== undefined) {
    // Body Hash extension §3.2: a form body is signed through its parameters, never hashed.
    throw problem400('parameter_rejected', 'oauth_body_hash must not be sent with a form-encoded body');
  }
  // Storage that answers at once (cached consumers, SQLite's token rows) costs no wait.
  const consumer = options.consumers(p.consumerKey);
  if (isPromise(consumer)) return consumer.then((c) => withConsumer(req, options, collected, p, c));
  return withConsumer(req, options, collected, p, consumer);
}

function withConsumer<T extends OAuth1TokenSecret>(
  req: Request, options: VerifyOAuth1Options<T>, collected: CollectedParams, p: ProtocolParams, consumer: OAuth1Consumer | undefined,
): CheckedRequest<T> | Promise<CheckedRequest<T>> {
  const token = p.token === undefined || consumer === undefined ? undefined : options.tokens!(p.token, consumer);
  if (isPromise(token)) return token.then((t) => checkSignature(req, options, collected, p, consumer, t));
  return checkSignature(req, options, collected, p, consumer, token);
}

/** Timestamp, signature (§3.2), then the body hash; the nonce's key and lifetime for the caller to spend. */
function checkSignature<T extends OAuth1TokenSecret>(
  req: Request, options: VerifyOAuth1Options<T>, collected: CollectedParams, p: ProtocolParams, consumer: OAuth1Consumer | undefined, token: T | undefined,
): CheckedRequest<T> | Promise<CheckedRequest<T>> {
  const challenge = options.challenge ?? DEFAULT_CHALLENGE;
  const now = (options.now ?? Date.now)();
  const skew = options.clockSkewMs ?? DEFAULT_OAUTH1_CLOCK_SKEW_MS;
  const timestampMs = Number(p.timestamp) * 1000;
  if (Math.abs(now - timestampMs) > skew) throw problem401(challenge, 'timestamp_refused', 'oauth_timestamp is outside the accepted clock skew');

  const { all, protocol } = collected;
  const baseString = signatureBaseString(req.originalMethod ?? req.method ?? 'GET', baseStringUri(req), all);
  const tokenKnown = p.token === undefined || (token !== undefined && token.consumerKey === consumer?.key);
  const ok = checkOAuth1Signature(p.method, baseString, p.signature, {
    consumerSecret: consumer?.secret ?? DUMMY_SECRET,
    tokenSecret: p.token === undefined ? undefined : tokenKnown ? token?.secret : DUMMY_SECRET,
    rsaPublicKey: consumer?.rsaPublicKey === undefined ? undefined : rsaPublicKey(consumer.rsaPublicKey),
  }, options.safeEqual ?? defaultSafeEqual);
  const secretUsable = p.method === 'RSA-SHA1' ? consumer?.rsaPublicKey !== undefined : consumer?.secret !== undefined;
  if (!ok || consumer === undefined || !tokenKnown || !secretUsable) {
    const diagnostics = (options.production ?? process.env.NODE_ENV === 'production') ? undefined : { baseString };
    throw problem401(challenge, 'signature_invalid', 'Invalid OAuth credentials', diagnostics);
  }

  const checked: CheckedRequest<T> = {
    verified: { consumer, token, signatureMethod: p.method, protocol, protocolPlace: collected.protocolPlace!, params: all },
    nonceKey: nonceKey(consumer.key, p.token, p.timestamp, p.nonce),
    // Remembered for as long as its timestamp stays acceptable.
    nonceTtlMs: Math.max(1000, timestampMs + skew - now + 1000),
  };
  const bodyHash = protocol.get('oauth_body_hash');
  if (bodyHash === undefined) return checked;
  return checkBodyHash(req, bodyHash, options.bodyLimit ?? DEFAULT_BODY_LIMIT, challenge, options.safeEqual ?? defaultSafeEqual).then(() => checked);
}

function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}

interface ProtocolParams {
  consumerKey: string;
  method: OAuth1SignatureMethod;
  signature: string;
  timestamp: string;
  nonce: string;
  token: string | undefined;
}

/** §3.1 / §3.2: the required parameters present and well-formed; 400 otherwise. Each is looked up once. */
function checkProtocolParams(protocol: ReadonlyMap<string, string>, tokensAllowed: boolean, requireToken: boolean): ProtocolParams {
  const consumerKey = required(protocol, 'oauth_consumer_key');
  const method = required(protocol, 'oauth_signature_method');
  const signature = required(protocol, 'oauth_signature');
  const timestamp = required(protocol, 'oauth_timestamp');
  const nonce = required(protocol, 'oauth_nonce');
  const version = protocol.get('oauth_version');
  if (version !== undefined && version !== '1.0') throw problem400('version_rejected', 'oauth_version must be 1.0 when present (RFC 5849 §3.1)');
  if (!isSignatureMethod(method)) throw problem400('signature_method_rejected', `Unsupported oauth_signature_method; use one of HMAC-SHA1, HMAC-SHA256, RSA-SHA1, PLAINTEXT`);
  if (!TIMESTAMP_RE.test(timestamp)) throw problem400('parameter_rejected', 'oauth_timestamp must be a number of seconds');
  // An empty oauth_token is sent by some clients before they have one (RFC 5849 §2.1 allows omitting it).
  const token = protocol.get('oauth_token') || undefined;
  if (token !== undefined && !tokensAllowed) throw problem400('parameter_rejected', 'This request must not carry an oauth_token');
  if (token === undefined && requireToken) throw problem400('parameter_absent', 'The OAuth parameter oauth_token is required', { oauth_parameters_absent: 'oauth_token' });
  return { consumerKey, method, signature, timestamp, nonce, token };
}

/** A required protocol parameter's value; 400 naming it when absent or empty. */
function required(protocol: ReadonlyMap<string, string>, name: RequiredParam): string {
  const value = protocol.get(name);
  if (!value) throw problem400('parameter_absent', `The OAuth parameter ${name} is required`, { oauth_parameters_absent: name });
  return value;
}

/** Whether the request has a single-part form-encoded body, whose parameters §3.4.1.3.1 signs. */
function isFormRequest(req: Request): boolean {
  const type = req.headers['content-type'];
  return type !== undefined && hasBody(req) && parseContentType(type)?.type === FORM_TYPE;
}

/** The text of a form-encoded body. */
async function formBodyOf(req: Request, limit: number): Promise<string> {
  const bytes = await readRawBody(req, { limit });
  if (!isUtf8(bytes)) throw malformedCredentials('A form-encoded body must be percent-encoded UTF-8');
  return bytes.toString('utf8');
}

/** Body Hash extension §3.2: SHA-1 of the body as sent (still content-coded), compared in constant time. */
async function checkBodyHash(req: Request, expected: string, limit: number, challenge: string, safeEqual: SafeEqual): Promise<void> {
  const decoded = hasBody(req) ? await readRawBody(req, { limit }) : Buffer.alloc(0);
  if (!safeEqual(expected, oauthBodyHash(wireBodyOf(req) ?? decoded))) {
    throw problem401(challenge, 'body_hash_invalid', 'oauth_body_hash does not match the body');
  }
}

/**
 * The nonce's record: unique per client, token, timestamp and nonce (§3.3). The parts are
 * percent-encoded, so `:` cannot join two into one.
 */
function nonceKey(consumerKey: string, token: string | undefined, timestamp: string, nonce: string): string {
  return `oauth1:${oauthEncode(consumerKey)}:${oauthEncode(token ?? '')}:${timestamp}:${oauthEncode(nonce)}`;
}

/** Records the nonce; refuses (401) one already recorded, and fails closed (503) when the store cannot answer. */
function spendNonce<T extends OAuth1TokenSecret>(nonces: NonceStore, checked: CheckedRequest<T>, challenge: string): Promise<void> {
  return spendNonceThen(nonces, checked, challenge, () => undefined);
}

function spendNonceThen<T extends OAuth1TokenSecret, R>(
  nonces: NonceStore, checked: CheckedRequest<T>, challenge: string, then: (verified: VerifiedOAuth1Request<T>) => R | PromiseLike<R>,
): Promise<R> {
  let consumed: Promise<boolean>;
  try {
    consumed = nonces.consume(checked.nonceKey, checked.nonceTtlMs);
  } catch (err) {
    return Promise.reject(nonceStoreUnavailable(err));
  }
  return consumed.then(
    (fresh) => {
      if (!fresh) throw problem401(challenge, 'nonce_used', 'oauth_nonce was already used with this timestamp');
      return then(checked.verified);
    },
    (err: unknown) => {
      throw nonceStoreUnavailable(err);
    },
  );
}

function nonceStoreUnavailable(cause: unknown): HttpError {
  return new HttpError(503, 'Replay protection is unavailable', { code: 'ROA_ERR_NONCE_STORE_UNAVAILABLE', headers: { 'Retry-After': '5' }, expose: true, cause });
}

function problem400(oauthProblem: OAuth1Problem, message: string, more?: Record<string, string>): HttpError {
  return new HttpError(400, message, { code: 'ROA_ERR_MALFORMED_CREDENTIALS', extensions: { oauthProblem, ...more } });
}

function problem401(challenge: string, oauthProblem: OAuth1Problem, message: string, more?: Record<string, unknown>): HttpError {
  return invalidCredentials(challenge, { oauthProblem, ...more }, message);
}
