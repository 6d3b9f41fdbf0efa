/** @module auth The authentication layer's public surface (schemes, stores, OAuth), for `service.ts` and `src/index.ts`. */
export { CALLER_KEY, type AuthScheme, type Caller, type Role } from './scheme.js';
export { Authenticator } from './authenticator.js';
export { BasicScheme, parseBasic, type BasicSchemeOptions } from './basic.js';
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
export { MemoryNonceStore } from './memory-nonce-store.js';
export { StoreNonceStore } from './store-nonce-store.js';
export { createRedisNonceStore, RedisNonceStore, type RedisNonceStoreOptions } from './redis-nonce-store.js';
export { generateClientSecret, generateToken, hashClientSecret, hashToken, verifyClientSecret } from './tokens.js';
export { JwtAccessTokens, DEFAULT_JWT_KEY_FILE, type JwtAlg } from './jwt-keys.js';
export { FailureThrottle, type ThrottleOptions } from './throttle.js';
export { OAuthError } from './oauth-errors.js';
export { OAuthTokenService, type OAuthOptions } from './oauth-token.js';
export { createOAuthRouter, type OAuthRouterOptions } from './oauth-router.js';
