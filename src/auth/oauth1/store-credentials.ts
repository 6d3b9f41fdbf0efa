/**
 * @module auth/oauth1/store-credentials
 * The OAuth 1 scheme's credentials read from the service's storage (`store.oauth1`): secrets
 * there are sealed (auth/secret-box) and tokens kept by hash, so this opens and looks up, with a
 * short cache so the hot path pays no AES-GCM per request.
 */
import { HttpError } from '../../errors/http-error.js';
import type { OAuth1Consumer as StoredConsumer, OAuth1Store } from '../../storage/oauth1-records.js';
import { BoundedMap } from '../../util/bounded-map.js';
import type { SecretBox } from '../secret-box.js';
import { hashToken } from '../tokens.js';
import { RECORD_TTL_MS } from '../user-cache.js';
import type { OAuth1Consumer, OAuth1Credentials, OAuth1TokenCredentials } from './credentials.js';

const consumerAad = (clientId: string): string => `roa oauth1-consumer-secret v1 client=${clientId}`;
const tokenAad = (tokenHash: string): string => `roa oauth1-token-secret v1 token=${tokenHash}`;

/** Encrypts a consumer's shared secret for `store.oauth1.createConsumer({ sealedSecret })`. */
export function sealConsumerSecret(box: SecretBox, clientId: string, secret: string): string {
  return box.seal(secret, consumerAad(clientId));
}

/** Decrypts what `sealConsumerSecret` produced for the same client. */
export function openConsumerSecret(box: SecretBox, clientId: string, blob: string): string {
  return box.open(blob, consumerAad(clientId));
}

/** Encrypts a token secret (temporary or token credentials) under the hash of its token. */
export function sealTokenSecret(box: SecretBox, tokenHash: string, secret: string): string {
  return box.seal(secret, tokenAad(tokenHash));
}

/** Decrypts what `sealTokenSecret` produced for the same token hash. */
export function openTokenSecret(box: SecretBox, tokenHash: string, blob: string): string {
  return box.open(blob, tokenAad(tokenHash));
}

/** The verification view of a stored consumer, its secret opened. */
export function openConsumer(box: SecretBox, c: StoredConsumer): OAuth1Consumer {
  return {
    key: c.clientId,
    secret: c.sealedSecret === null ? undefined : unsealed(() => openConsumerSecret(box, c.clientId, c.sealedSecret!)),
    rsaPublicKey: c.rsaPublicKey ?? undefined,
    callbacks: c.callbacks,
    userName: c.userName ?? undefined,
  };
}

export interface StoreCredentialsOptions {
  /** How long a consumer is reused before the store is asked again (default 1000 ms, as user records). */
  recordTtlMs?: number;
  now?: () => number;
}

/**
 * Consumers and access tokens from `store.oauth1`. A consumer is reused for a second (a removed
 * client stops within it, as a removed user does); token credentials are read on every request,
 * so a revocation takes effect at once, and only their opened secret is reused while the sealed
 * blob is the same.
 * @example
 *   new OAuth1Scheme({ credentials: storeCredentials(store.oauth1, box), store, nonces });
 */
export function storeCredentials(oauth1: Pick<OAuth1Store, 'getConsumer' | 'getTokenCredentials'>, box: SecretBox, options: StoreCredentialsOptions = {}): OAuth1Credentials {
  const ttl = options.recordTtlMs ?? RECORD_TTL_MS;
  const now = options.now ?? Date.now;
  const consumers = new BoundedMap<string, { at: number; value: Promise<OAuth1Consumer | undefined> }>(10_000);
  const secrets = new BoundedMap<string, { blob: string; secret: string }>(10_000);
  return {
    getConsumer(key) {
      const hit = consumers.get(key);
      const t = now();
      if (hit !== undefined && t - hit.at < ttl) return hit.value;
      const value = oauth1.getConsumer(key).then((c) => (c === undefined ? undefined : openConsumer(box, c)));
      consumers.set(key, { at: t, value });
      // A failed read is not remembered: the next request asks again.
      value.catch(() => consumers.delete(key));
      return value;
    },
    async getAccessToken(token): Promise<OAuth1TokenCredentials | undefined> {
      const tokenHash = hashToken(token);
      const rec = await oauth1.getTokenCredentials(tokenHash);
      if (rec === undefined || rec.revoked) return undefined;
      let opened = secrets.get(tokenHash);
      if (opened === undefined || opened.blob !== rec.sealedSecret) {
        opened = { blob: rec.sealedSecret, secret: unsealed(() => openTokenSecret(box, tokenHash, rec.sealedSecret)) };
        secrets.set(tokenHash, opened);
      }
      return { secret: opened.secret, consumerKey: rec.clientId, userName: rec.userName };
    },
  };
}

/** A secret that does not open (the server key changed, a row was copied): an operator problem, never the client's. */
function unsealed(open: () => string): string {
  try {
    return open();
  } catch (err) {
    throw new HttpError(500, 'OAuth 1 secret cannot be decrypted', { code: 'ROA_ERR_OAUTH1_SECRET_UNREADABLE', expose: false, cause: err });
  }
}
