/**
 * @module auth/oauth1/credentials
 * What OAuth 1.0a verification needs from storage (RFC 5849 §1.1): the client ("consumer") and its
 * shared secret or RSA public key, and the secrets of token credentials. The storage implements
 * these lookups; verification never writes.
 */

/** A value now, or a promise of it: an in-process store answers without a promise on the hot path. */
export type MaybePromise<T> = T | Promise<T>;

/** A registered OAuth 1 client (RFC 5849 "client", formerly "consumer"). */
export interface OAuth1Consumer {
  /** `oauth_consumer_key`. */
  key: string;
  /** The shared secret in plain text (stored sealed), for HMAC-SHA1, HMAC-SHA256 and PLAINTEXT; undefined for an RSA-only client. */
  secret: string | undefined;
  /** The client's RSA public key as PEM (SPKI or PKCS#1), for RSA-SHA1; undefined when none was registered. */
  rsaPublicKey: string | undefined;
  /** Registered callback URIs (for the endpoints; verification does not read them). */
  callbacks: readonly string[];
  /**
   * The user a request signed without a token acts for ("two-legged"); undefined for clients that
   * act only for whoever approved them, whose resource requests then need a token.
   */
  userName?: string | undefined;
}

/** The part of any token credentials (temporary or access) that verification reads. */
export interface OAuth1TokenSecret {
  /** `oauth_token_secret` in plain text. */
  secret: string;
  /** The client the credentials were issued to: a token used by another client is refused. */
  consumerKey: string;
}

/** Access token credentials (RFC 5849 §2.3): what a signed resource request acts with. */
export interface OAuth1TokenCredentials extends OAuth1TokenSecret {
  /** The user who approved the client: the caller of the request. */
  userName: string;
  /** Scopes granted, when the storage records any; null or absent: the user's full role. */
  scopes?: readonly string[] | null;
}

/**
 * The lookups the OAuth 1 scheme reads. Each answers undefined for an unknown (or revoked, or
 * expired) key; a rejection is a storage failure (answered 5xx, never 401).
 * @example
 *   const credentials: OAuth1Credentials = {
 *     getConsumer: (key) => consumers.get(key),
 *     getAccessToken: (token) => accessTokens.get(token),
 *   };
 */
export interface OAuth1Credentials {
  getConsumer(key: string): MaybePromise<OAuth1Consumer | undefined>;
  getAccessToken(token: string): MaybePromise<OAuth1TokenCredentials | undefined>;
}
