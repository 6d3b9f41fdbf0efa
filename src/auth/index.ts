/**
 * @module auth
 * `roa/auth`: build an {@link Authenticator} from the schemes (Basic, HMAC, Bearer), their nonce
 * stores and throttles, password and secret hashing, and the OAuth token service and router (with
 * the authorization code flow's sign-in pages).
 *
 * @example
 *   import { Authenticator, BasicScheme, hashPassword } from 'roa/auth';
 *   const users = new Map([['ada', { name: 'ada', role: 'editor', passwordHash: await hashPassword('s3cret'), hmacSecret: null, createdAt: new Date() }]]);
 *   const auth = new Authenticator([new BasicScheme({ store: { getUser: async (name) => users.get(name) } })]);
 *   app.get('/me', auth.required(), (req, res) => res.json(req.locals.caller));
 */
export { CALLER_KEY, type AuthScheme, type Caller, type Role } from './scheme.js';
/** The records the schemes read through their `store` (`getUser`, and `getClient` for OAuth). */
export type { OAuthClient, User } from '../storage/store.js';
export { Authenticator } from './authenticator.js';
export { BasicScheme, parseBasic, type BasicCredentials, type BasicSchemeOptions } from './basic.js';
export { HmacScheme, type HmacSchemeOptions } from './hmac.js';
export { BearerScheme, type BearerSchemeOptions } from './bearer.js';
export { insufficientScope, requireScope } from './scopes.js';
export { safeEqual, type SafeEqual } from './safe-equal.js';
export { hashPassword, verifyPassword, DEFAULT_SCRYPT_PARAMS, type ScryptParams } from './passwords.js';
export {
  DEFAULT_KEY_FILE,
  generateHmacSecret,
  loadServerKey,
  openHmacSecret,
  sealHmacSecret,
  SecretBox,
  type LoadServerKeyOptions,
  type ServerKey,
} from './secret-box.js';
export { NonceStoreUnavailableError, type NonceStore } from './nonce-store.js';
export { MemoryNonceStore, type MemoryNonceStoreOptions } from './memory-nonce-store.js';
export { StoreNonceStore } from './store-nonce-store.js';
export { createRedisNonceStore, RedisNonceStore, type RedisNonceStoreOptions } from './redis-nonce-store.js';
export type { RedisClientKind } from '../redis/redis-client.js';
export { generateClientSecret, generateToken, hashClientSecret, hashToken, verifyClientSecret } from './tokens.js';
export { JwtAccessTokens, DEFAULT_JWT_KEY_FILE, type JwtAlg, type JwtKeyOptions } from './jwt-keys.js';
export { FailureThrottle, type AttemptThrottle, type ThrottleOptions } from './throttle.js';
export { RedisFailureThrottle, type RedisThrottleOptions } from './redis-throttle.js';
export { OAuthError, type OAuthErrorCode } from './oauth-errors.js';
export { OAuthTokenService, type OAuthOptions, type OAuthStore } from './oauth-token.js';
export { createOAuthRouter, type OAuthRouterOptions } from './oauth-router.js';
/** The sign-in and approval pages of /oauth/authorize (pass them to createOAuthRouter as `consent`) and /oauth1/authorize. */
export { ConsentPages, consentKey, FlowSeal, type ConsentAnswer, type ConsentPagesOptions, type PageView } from './consent/index.js';
export { redirectUriMatches, redirectUriProblem } from './redirect-uris.js';
export {
  OAuth1Scheme,
  verifyOAuth1Request,
  DEFAULT_OAUTH1_CLOCK_SKEW_MS,
  DEFAULT_OAUTH1_LIMITS,
  oauth1Signature,
  signatureBaseString,
  type OAuth1Consumer,
  type OAuth1Credentials,
  type OAuth1Limits,
  type OAuth1SchemeOptions,
  type OAuth1SignatureMethod,
  type OAuth1TokenCredentials,
  type OAuth1TokenSecret,
  type VerifiedOAuth1Request,
  type VerifyOAuth1Options,
} from './oauth1/index.js';
