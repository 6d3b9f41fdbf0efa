/**
 * @module middleware/credentials-over-tls
 * Production's TLS rule: credentials never travel in clear. Basic is "encoding, not encryption"
 * (RFC 7617 §4), and OAuth 2.0 requires TLS for credentials and tokens (RFC 6749 §1.6, §3.2; RFC 6750
 * §5.3), so a request that carries any and did not come over TLS (directly, or through a proxy the app
 * trusts that says so: `req.secure`) is refused before anything reads, checks or stores it. Answers to
 * secure requests carry Strict-Transport-Security (RFC 6797), so browsers stop trying plain HTTP.
 */
import type { Logger } from 'pino';
import { HttpError } from '../errors/http-error.js';
import { sendProblem } from '../errors/problem.js';
import { queryCarriesOAuth1 } from '../auth/oauth1/oauth1-scheme.js';
import { pathnameOf, type NextFunction, type Request } from '../http/request.js';
import type { Response } from '../http/response.js';

/**
 * The OAuth endpoints that read client secrets or passwords from the body (RFC 6749 §2.3.1, §4.3.2),
 * and the OAuth 1.0a sign-in page, whose form posts a password (RFC 5849 §4.13: TLS for the user's credentials).
 */
export const OAUTH_CREDENTIAL_PATHS: readonly string[] = Object.freeze(['/oauth/token', '/oauth/revoke', '/oauth/introspect', '/oauth1/authorize']);

/** One year: what RFC 6797 §11.2 and the preload lists expect of a site committed to HTTPS. */
const ONE_YEAR_S = 31_536_000;

export interface CredentialsOverTlsOptions {
  /**
   * Whether to enforce (refuse and send HSTS); default: when the app's `env` setting is
   * `production`. Development and test serve plain HTTP untouched.
   */
  production?: boolean;
  /** Strict-Transport-Security max-age in seconds (default one year); 0 or false sends none. */
  hstsMaxAge?: number | false;
  /**
   * Add `includeSubDomains` (default false): the service rarely owns every host under its domain,
   * and the directive would force all of them to HTTPS in browsers that saw this answer once.
   */
  hstsIncludeSubDomains?: boolean;
  /**
   * Paths (relative to where the middleware is mounted) whose POSTs carry credentials in the body
   * whatever their headers; default the OAuth token, revocation and introspection endpoints. Matched
   * as the router does: case-insensitively, with or without a trailing slash.
   */
  credentialPaths?: readonly string[];
  /** Where refusals are logged, at warn: method, path, client address and the kind of credential. */
  logger?: Pick<Logger, 'warn'>;
}

/**
 * Refuses, in production, requests carrying credentials that did not arrive over TLS: 403 problem
 * `ROA_ERR_TLS_REQUIRED`. Mount it first, before anything that authenticates or reads bodies.
 * @example
 *   app.use(credentialsOverTls({ logger, hstsMaxAge: 31536000 }));
 */
export function credentialsOverTls(options: CredentialsOverTlsOptions = {}) {
  const maxAge = options.hstsMaxAge === false ? 0 : options.hstsMaxAge ?? ONE_YEAR_S;
  if (!Number.isInteger(maxAge) || maxAge < 0) throw new TypeError(`credentialsOverTls: hstsMaxAge must be a whole number of seconds, got ${String(options.hstsMaxAge)}`);
  const hsts = maxAge === 0 ? undefined : `max-age=${maxAge}${options.hstsIncludeSubDomains === true ? '; includeSubDomains' : ''}`;
  const paths = new Set((options.credentialPaths ?? OAUTH_CREDENTIAL_PATHS).map(normalisePath));
  const logger = options.logger;
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!(options.production ?? req.app?.get('env') === 'production')) {
      next();
      return;
    }
    if (req.secure) {
      // A late field: set with setHeader on every secure request, it made node take every field of
      // the resource's one-array head through its header map (http/response setLateHeader).
      if (hsts !== undefined) res.setLateHeader('Strict-Transport-Security', hsts);
      next();
      return;
    }
    const credential = credentialKind(req, paths);
    if (credential === undefined) {
      next();
      return;
    }
    const path = pathnameOf(req.originalUrl || req.url || '/');
    // Never the credential itself, nor the query (a client may have put a token there).
    logger?.warn({ method: req.method, path, ip: req.ip, credential }, 'refused credentials sent over plain HTTP');
    sendProblem(req, res, tlsRequired(), { env: 'production' });
  };
}

/** Which kind of credential the request carries, named for the log; undefined for none. */
function credentialKind(req: Request, paths: ReadonlySet<string>): string | undefined {
  const authorization = req.headers.authorization;
  if (authorization !== undefined) return `Authorization ${schemeName(authorization)}`;
  // roa's HMAC scheme (auth/hmac): `Authentication: hmac user:nonce:signature`.
  if (req.headers.authentication !== undefined) return 'Authentication (HMAC)';
  // OAuth 1.0a's protocol parameters may travel in the query (RFC 5849 §3.5.3): a token and a signature.
  if (queryCarriesOAuth1(req.url ?? '')) return 'OAuth 1.0a parameters in the query';
  if (req.method === 'POST' && paths.has(normalisePath(pathnameOf(req.url ?? '/')))) return 'OAuth client credentials or password';
  return undefined;
}

/** Schemes named in the log as they are; any other word could be the credential itself. */
const KNOWN_SCHEMES = new Map(['Basic', 'Bearer', 'DPoP', 'Digest', 'HMAC', 'Negotiate', 'NTLM', 'OAuth'].map((s) => [s.toLowerCase(), s]));

/** The request's auth scheme for the log: a known name, else `other` (never the header's text). */
function schemeName(value: string): string {
  const m = /^\s*([A-Za-z]+)(?:\s|$)/.exec(value);
  return (m === null ? undefined : KNOWN_SCHEMES.get(m[1]!.toLowerCase())) ?? 'other';
}

function normalisePath(path: string): string {
  const lower = path.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

function tlsRequired(): HttpError {
  return new HttpError(403, 'Credentials must be sent over https: this request came over plain HTTP; repeat it with an https:// URL', {
    code: 'ROA_ERR_TLS_REQUIRED',
  });
}
