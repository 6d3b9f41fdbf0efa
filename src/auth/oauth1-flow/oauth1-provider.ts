/**
 * @module auth/oauth1-flow/oauth1-provider
 * The OAuth 1.0a provider's credentials (RFC 5849 §2): issues temporary credentials, records a
 * user's approval with a verifier, and exchanges both for token credentials. Tokens are stored as
 * SHA-256 hashes, so a lookup by token compares no secret; secrets are sealed as auth/oauth1's
 * store-credentials opens them (HMAC needs them in plain text).
 */
import { randomBytes } from 'node:crypto';
import { HttpError } from '../../errors/http-error.js';
import type { NewOAuth1TokenCredentials, OAuth1Store } from '../../storage/oauth1-records.js';
import type { OAuth1TokenSecret } from '../oauth1/credentials.js';
import { openTokenSecret, sealTokenSecret } from '../oauth1/store-credentials.js';
import { safeEqual } from '../safe-equal.js';
import type { SecretBox } from '../secret-box.js';
import { generateToken, hashToken } from '../tokens.js';

/** RFC 5849 leaves it open; the issue bounds temporary credentials and verifiers to 10 minutes. */
export const DEFAULT_TEMPORARY_TTL_MS = 10 * 60_000;
/** Unexpired temporary credentials one consumer may hold at once; past it `/oauth1/initiate` answers 429. */
export const DEFAULT_MAX_LIVE_TEMPORARY = 1000;

export interface OAuth1ProviderOptions {
  store: { oauth1: OAuth1Store };
  box: SecretBox;
  /** Life of temporary credentials and their verifier, ms (default and maximum 10 minutes). */
  temporaryTtlMs?: number;
  /** Default 1000. */
  maxLiveTemporary?: number;
  /** Clock (ms epoch); tests move it. */
  now?: () => number;
}

/** Credentials as handed to the consumer once: the token and its secret in plain text. */
export interface IssuedCredentials {
  token: string;
  secret: string;
}

/** Temporary credentials as the approval page sees them. */
export interface PendingApproval {
  clientId: string;
  callback: string;
}

/** A verifier (RFC 5849 §2.2): 128 random bits, short enough to copy by hand for `oob`. */
function generateVerifier(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * @example
 *   const provider = new OAuth1Provider({ store, box });
 *   const { token, secret } = await provider.issueTemporary('printer', 'https://printer.example/ready');
 */
export class OAuth1Provider {
  private readonly oauth1: OAuth1Store;
  private readonly box: SecretBox;
  private readonly ttlMs: number;
  private readonly maxLive: number;
  readonly now: () => number;

  constructor(options: OAuth1ProviderOptions) {
    this.oauth1 = options.store.oauth1;
    this.box = options.box;
    this.ttlMs = options.temporaryTtlMs ?? DEFAULT_TEMPORARY_TTL_MS;
    if (!(this.ttlMs > 0 && this.ttlMs <= DEFAULT_TEMPORARY_TTL_MS)) throw new RangeError(`temporaryTtlMs must be in (0, 600000], got ${this.ttlMs}`);
    this.maxLive = options.maxLiveTemporary ?? DEFAULT_MAX_LIVE_TEMPORARY;
    if (!Number.isSafeInteger(this.maxLive) || this.maxLive < 1) throw new RangeError(`maxLiveTemporary must be a positive integer, got ${this.maxLive}`);
    this.now = options.now ?? Date.now;
  }

  /** Unexpired temporary credentials (approved or not), for verifying a request signed with them. */
  async getTemporaryToken(token: string): Promise<OAuth1TokenSecret | undefined> {
    const tokenHash = hashToken(token);
    const t = await this.oauth1.getTemporaryCredentials(tokenHash, this.now());
    if (t === undefined) return undefined;
    return { secret: openTokenSecret(this.box, tokenHash, t.sealedSecret), consumerKey: t.clientId };
  }

  /** §2.1: new temporary credentials for a consumer whose request verified; 429 past the live limit. */
  async issueTemporary(clientId: string, callback: string): Promise<IssuedCredentials> {
    const token = generateToken();
    const secret = generateToken();
    const tokenHash = hashToken(token);
    const now = this.now();
    const saved = await this.oauth1.saveTemporaryCredentials(
      { tokenHash, sealedSecret: sealTokenSecret(this.box, tokenHash, secret), clientId, callback, expiresAtMs: now + this.ttlMs }, now, this.maxLive,
    );
    if (!saved) {
      throw new HttpError(429, `This client holds ${this.maxLive} unused temporary credentials; use or let them expire first`, {
        code: 'ROA_ERR_OAUTH1_TOO_MANY_TEMPORARY', headers: { 'Retry-After': String(Math.ceil(this.ttlMs / 1000)) },
      });
    }
    return { token, secret };
  }

  /** The approval page's view of unexpired temporary credentials not yet approved; undefined otherwise. */
  async pending(token: string): Promise<PendingApproval | undefined> {
    const t = await this.oauth1.getTemporaryCredentials(hashToken(token), this.now());
    if (t === undefined || t.verifierHash !== null) return undefined;
    return { clientId: t.clientId, callback: t.callback };
  }

  /** §2.2: records `userName`'s approval; the verifier to hand back, or undefined when it came too late or twice. */
  async approve(token: string, userName: string): Promise<string | undefined> {
    const verifier = generateVerifier();
    const approved = await this.oauth1.approveTemporaryCredentials(hashToken(token), { verifierHash: hashToken(verifier), userName }, this.now());
    return approved ? verifier : undefined;
  }

  /** A denial: the pending temporary credentials are gone; false when there were none, or they were approved already. */
  async deny(token: string): Promise<boolean> {
    return this.oauth1.deletePendingTemporaryCredentials(hashToken(token));
  }

  /**
   * §2.3: token credentials for approved temporary credentials and their verifier, or undefined.
   * Either way the temporary credentials are used up: a wrong verifier cannot be retried.
   */
  async exchange(temporaryToken: string, verifier: string): Promise<IssuedCredentials | undefined> {
    const token = generateToken();
    const secret = generateToken();
    const tokenHash = hashToken(token);
    const verifierHash = hashToken(verifier);
    const result = await this.oauth1.exchangeTemporaryCredentials(
      hashToken(temporaryToken), this.now(), (stored) => safeEqual(stored, verifierHash),
      (approved): NewOAuth1TokenCredentials => ({ tokenHash, sealedSecret: sealTokenSecret(this.box, tokenHash, secret), clientId: approved.clientId, userName: approved.userName }),
    );
    return result.status === 'issued' ? { token, secret } : undefined;
  }
}
