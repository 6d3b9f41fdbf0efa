/**
 * @module auth/oauth1/store-credentials
 * The OAuth 1 scheme's credentials read from the service's storage (`store.oauth1`): secrets
 * there are sealed (auth/secret-box) and tokens kept by hash, so this opens and looks up, with a
 * short cache so the hot path pays no AES-GCM per request.
 */
import { HttpError } from '../../errors/http-error.js';
import type { OAuth1Consumer as StoredConsumer, OAuth1Store, OAuth1TokenCredentials as StoredTokenCredentials } from '../../storage/oauth1-records.js';
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

/** A consumer read (or being read) from the storage, and when. */
interface ConsumerEntry {
  at: number;
  value: Promise<OAuth1Consumer | undefined>;
  /** True once `value` resolved: `consumer` is its value. */
  settled: boolean;
  consumer: OAuth1Consumer | undefined;
}

/**
 * What `storeCredentials` reads: `store.oauth1`, with `getTokenCredentialsNow` when the storage
 * answers without a promise (SQLite), which the hot path then takes.
 */
export type OAuth1CredentialsSource = Pick<OAuth1Store, 'getConsumer' | 'getTokenCredentials'> & {
  getTokenCredentialsNow?: (tokenHash: string) => StoredTokenCredentials | undefined;
};

/**
 * Consumers and access tokens from `store.oauth1`. A consumer is reused for a second (a removed
 * client stops within it, as a removed user does); token credentials are asked of the storage on
 * every request, so a revocation takes effect at once (SQLite answers from its token-row cache,
 * which any write to those rows empties), and only their opened secret is reused while the sealed
 * blob is the same.
 * @example
 *   new OAuth1Scheme({ credentials: storeCredentials(store.oauth1, box), store, nonces });
 */
export function storeCredentials(oauth1: OAuth1CredentialsSource, box: SecretBox, options: StoreCredentialsOptions = {}): OAuth1Credentials {
  const ttl = options.recordTtlMs ?? RECORD_TTL_MS;
  const now = options.now ?? Date.now;
  const consumers = new BoundedMap<string, ConsumerEntry>(10_000);
  const secrets = new BoundedMap<string, { blob: string; secret: string }>(10_000);
  // SHA-256 of a token per request is a native call and two strings; the same token comes back on every request.
  const hashes = new BoundedMap<string, string>(10_000);
  const hashOf = (token: string): string => {
    let hash = hashes.get(token);
    if (hash === undefined) {
      hash = hashToken(token);
      hashes.set(token, hash);
    }
    return hash;
  };
  const toCredentials = (tokenHash: string, rec: StoredTokenCredentials | undefined): OAuth1TokenCredentials | undefined => {
    if (rec === undefined || rec.revoked) return undefined;
    let opened = secrets.get(tokenHash);
    if (opened === undefined || opened.blob !== rec.sealedSecret) {
      opened = { blob: rec.sealedSecret, secret: unsealed(() => openTokenSecret(box, tokenHash, rec.sealedSecret)) };
      secrets.set(tokenHash, opened);
    }
    return { secret: opened.secret, consumerKey: rec.clientId, userName: rec.userName };
  };
  const getNow = oauth1.getTokenCredentialsNow?.bind(oauth1);
  return {
    getConsumer(key) {
      const hit = consumers.get(key);
      const t = now();
      if (hit !== undefined && t - hit.at < ttl) return hit.settled ? hit.consumer : hit.value;
      const entry: ConsumerEntry = {
        at: t,
        value: oauth1.getConsumer(key).then((c) => (c === undefined ? undefined : openConsumer(box, c))),
        settled: false,
        consumer: undefined,
      };
      consumers.set(key, entry);
      // Once read, later requests get the consumer itself, without a promise to wait for.
      entry.value.then((c) => {
        entry.consumer = c;
        entry.settled = true;
      }, () => {
        // A failed read is not remembered: the next request asks again.
        if (consumers.get(key) === entry) consumers.delete(key);
      });
      return entry.value;
    },
    getAccessToken(token): OAuth1TokenCredentials | undefined | Promise<OAuth1TokenCredentials | undefined> {
      const tokenHash = hashOf(token);
      if (getNow !== undefined) return toCredentials(tokenHash, getNow(tokenHash));
      return oauth1.getTokenCredentials(tokenHash).then((rec) => toCredentials(tokenHash, rec));
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
