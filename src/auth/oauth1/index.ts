/**
 * @module auth/oauth1
 * OAuth 1.0a (RFC 5849) signed-request verification: the scheme, the lower-level verifier the
 * /oauth1 endpoints call, the storage contract, and the signing primitives clients and tests use.
 */
export type { MaybePromise, OAuth1Consumer, OAuth1Credentials, OAuth1TokenCredentials, OAuth1TokenSecret } from './credentials.js';
export { DEFAULT_OAUTH1_LIMITS, type OAuth1Limits } from './limits.js';
export { OAuth1Scheme, type OAuth1SchemeOptions } from './oauth1-scheme.js';
export { DEFAULT_OAUTH1_CLOCK_SKEW_MS, verifyOAuth1Request, type OAuth1Problem, type VerifiedOAuth1Request, type VerifyOAuth1Options } from './verify.js';
export { baseStringUri, normalizeParameters, signatureBaseString } from './base-string.js';
export { oauthDecode, oauthEncode } from './percent-encoding.js';
export { collectParams, parseOAuthHeader, type OAuth1Param, type OAuth1ParamPlace } from './params.js';
export { OAUTH1_SIGNATURE_METHODS, oauth1Signature, oauthBodyHash, signingKey, type OAuth1SignatureMethod, type SignatureSecrets } from './signature.js';
export {
  openConsumer,
  openConsumerSecret,
  openTokenSecret,
  sealConsumerSecret,
  sealTokenSecret,
  storeCredentials,
  type StoreCredentialsOptions,
} from './store-credentials.js';
