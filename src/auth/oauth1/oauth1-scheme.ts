/**
 * @module auth/oauth1/oauth1-scheme
 * OAuth 1.0a signed requests (RFC 5849 §3) as an authentication scheme: the request acts for the
 * user who approved the client (its access token's), with that user's current role.
 */
import type { Request } from '../../http/request.js';
import type { Store, User } from '../../storage/store.js';
import { invalidCredentials } from '../errors.js';
import type { NonceStore } from '../nonce-store.js';
import type { AuthScheme, Caller } from '../scheme.js';
import { NOT_LOADED, RecordCache } from '../user-cache.js';
import type { OAuth1Credentials, OAuth1TokenCredentials } from './credentials.js';
import { oauth1Limits, type OAuth1Limits } from './limits.js';
import { isOAuthAuthorization } from './params.js';
import { verifyOAuth1RequestThen, type VerifiedOAuth1Request, type VerifyOAuth1Options } from './verify.js';

export interface OAuth1SchemeOptions {
  /** Clients and access tokens (the OAuth 1 storage). */
  credentials: OAuth1Credentials;
  /** The users callers resolve to (their role). */
  store: Pick<Store, 'getUser'>;
  nonces: NonceStore;
  realm?: string;
  /** Largest accepted |now − oauth_timestamp| (default 10 minutes, like the hmac scheme). */
  clockSkewMs?: number;
  limits?: Partial<OAuth1Limits>;
  /** Largest form body read for its parameters (default 100 KiB). */
  bodyLimit?: number;
  /** Production leaves the base string out of refusals. Default NODE_ENV === 'production'. */
  production?: boolean;
  /** How long a user record is reused (default 1000 ms, as the other schemes). */
  recordTtlMs?: number;
  now?: () => number;
}

// A query that carries a signature is OAuth 1 too (RFC 5849 §3.5.3); a body alone cannot be told
// without reading it, so signed resource requests send their protocol parameters in the header or query.
const QUERY_OAUTH_RE = /[?&]oauth_(?:signature|consumer_key)=/;

/** Whether a request target carries OAuth 1 protocol parameters in its query (what `matches` looks for there). */
export function queryCarriesOAuth1(url: string): boolean {
  return url.includes('oauth_') && QUERY_OAUTH_RE.test(url);
}

/**
 * The OAuth scheme. Its caller is the access token's user (or, for a request signed without a
 * token, the client's own registered user), with the user's current role, the token's scopes
 * when the storage records any (else null: the user's full role), and the client as `clientId`.
 * @example
 *   new Authenticator([new BasicScheme({ store }), new OAuth1Scheme({ credentials, store, nonces })]);
 */
export class OAuth1Scheme implements AuthScheme {
  readonly name = 'OAuth';
  private readonly challengeText: string;
  private readonly records: RecordCache;
  private readonly now: () => number;
  private readonly limits: OAuth1Limits;
  private readonly verifyOptions: VerifyOAuth1Options<OAuth1TokenCredentials>;

  constructor(private readonly options: OAuth1SchemeOptions) {
    // Throws for a bad limit here, never per request.
    this.limits = oauth1Limits(options.limits);
    const realm = options.realm ?? 'roa';
    if (!/^[\x20-\x7e]*$/.test(realm) || realm.includes('"')) throw new Error('OAuth1Scheme: realm must be printable ASCII without quotes');
    this.challengeText = `OAuth realm="${realm}"`;
    this.now = options.now ?? Date.now;
    this.records = new RecordCache(options.store, options.recordTtlMs, this.now);
    const { credentials } = options;
    this.verifyOptions = {
      consumers: (key) => credentials.getConsumer(key),
      tokens: (token) => credentials.getAccessToken(token),
      nonces: options.nonces,
      now: this.now,
      challenge: this.challengeText,
      production: options.production ?? process.env.NODE_ENV === 'production',
      limits: this.limits,
      ...(options.clockSkewMs !== undefined ? { clockSkewMs: options.clockSkewMs } : {}),
      ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
    };
  }

  challenge(): string {
    return this.challengeText;
  }

  matches(req: Request): boolean {
    const h = req.headers.authorization;
    if (h !== undefined && isOAuthAuthorization(h)) return true;
    // Also beside another scheme's Authorization, so the Authenticator refuses the mix.
    return queryCarriesOAuth1(req.originalUrl || req.url || '');
  }

  authenticate(req: Request): Promise<Caller> {
    return this.authenticateNow(req);
  }

  /** The caller once the nonce is spent: the verified request goes to `callerFor` in the nonce's own promise step. */
  authenticateNow(req: Request): Promise<Caller> {
    return verifyOAuth1RequestThen(req, this.verifyOptions, this.callerFor);
  }

  private readonly callerFor = ({ consumer, token }: VerifiedOAuth1Request<OAuth1TokenCredentials>): Caller | Promise<Caller> => {
    const userName = token !== undefined ? token.userName : consumer.userName;
    if (userName === undefined) throw invalidCredentials(this.challengeText, { oauthProblem: 'permission_denied' }, 'This client acts only for users who approved it: sign with an access token');
    const peeked = this.records.peekUser(userName);
    if (peeked === NOT_LOADED) return this.records.getUser(userName).then((user) => this.callerOf(user, consumer.key, token?.scopes));
    return this.callerOf(peeked, consumer.key, token?.scopes);
  };

  private callerOf(user: User | undefined, clientId: string, scopes: readonly string[] | null | undefined): Caller {
    if (user === undefined) throw invalidCredentials(this.challengeText, { oauthProblem: 'token_rejected' }, 'Invalid OAuth credentials');
    return { name: user.name, role: user.role, scopes: scopes == null ? null : [...scopes], scheme: 'oauth1', clientId };
  }
}
