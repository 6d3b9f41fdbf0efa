/** @module storage/sqlite/sqlite-oauth1 OAuth 1.0a records on SQLite: one synchronous connection, so each transaction is atomic across processes. */
import type { Database as Db, Statement } from 'better-sqlite3';
import { clientExists, userNotFound } from '../store-errors.js';
import { noteTokenWrite, TokenRowCache } from './token-row-cache.js';
import {
  CONSUMER_COLUMNS, joinCallbacks, TEMPORARY_COLUMNS, TOKEN_CREDENTIALS_COLUMNS, toConsumer, toTemporary, toTokenCredentials,
  type ConsumerRow, type NewOAuth1Consumer, type NewOAuth1TemporaryCredentials, type NewOAuth1TokenCredentials, type OAuth1Consumer,
  type OAuth1Exchange, type OAuth1Store, type OAuth1TemporaryCredentials, type OAuth1TokenCredentials, type TemporaryRow, type TokenCredentialsRow,
} from '../oauth1-records.js';

/** Runs a statement with the store's error mapping (driver errors become roa errors). */
export type SqliteRun = <T>(what: string, fn: () => T) => T;

/** The OAuth 1.0a part of SqliteStore (`store.oauth1`). */
export class SqliteOAuth1 implements OAuth1Store {
  private readonly s: Record<string, Statement>;
  /**
   * Token credentials rows reused until the database may have changed (storage/sqlite/token-row-cache):
   * every signed request reads its token's row, and a revocation must still count at once. Every
   * statement below that writes those rows calls noteTokenWrite first.
   */
  private readonly tokenRows: TokenRowCache<TokenCredentialsRow>;

  constructor(private readonly db: Db, private readonly run: SqliteRun) {
    const st = (sql: string): Statement => db.prepare(sql);
    const dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.tokenRows = new TokenRowCache<TokenCredentialsRow>(() => dataVersion.get() as number);
    this.s = {
      userExists: st('SELECT 1 FROM users WHERE name = ?'),
      oauth2ClientExists: st('SELECT 1 FROM oauth_clients WHERE client_id = ?'),
      insertConsumer: st(`INSERT INTO oauth1_consumers (${CONSUMER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (client_id) DO NOTHING`),
      consumerById: st(`SELECT ${CONSUMER_COLUMNS} FROM oauth1_consumers WHERE client_id = ?`),
      listConsumers: st(`SELECT ${CONSUMER_COLUMNS} FROM oauth1_consumers ORDER BY client_id`),
      deleteConsumer: st('DELETE FROM oauth1_consumers WHERE client_id = ?'),
      pruneTemporary: st('DELETE FROM oauth1_temporary_credentials WHERE expires_at <= ?'),
      countLiveTemporary: st('SELECT count(*) AS n FROM oauth1_temporary_credentials WHERE client_id = ? AND expires_at > ?'),
      insertTemporary: st(`INSERT INTO oauth1_temporary_credentials (token_hash, secret, client_id, callback, expires_at) VALUES (?, ?, ?, ?, ?)`),
      temporaryByHash: st(`SELECT ${TEMPORARY_COLUMNS} FROM oauth1_temporary_credentials WHERE token_hash = ? AND expires_at > ?`),
      approveTemporary: st(`UPDATE oauth1_temporary_credentials SET verifier_hash = ?, user_name = ?
        WHERE token_hash = ? AND expires_at > ? AND verifier_hash IS NULL`),
      deleteTemporary: st(`DELETE FROM oauth1_temporary_credentials WHERE token_hash = ? RETURNING ${TEMPORARY_COLUMNS}`),
      deletePendingTemporary: st('DELETE FROM oauth1_temporary_credentials WHERE token_hash = ? AND verifier_hash IS NULL'),
      insertToken: st(`INSERT INTO oauth1_token_credentials (token_hash, secret, client_id, user_name, created_at) VALUES (?, ?, ?, ?, ?)`),
      tokenByHash: st(`SELECT ${TOKEN_CREDENTIALS_COLUMNS} FROM oauth1_token_credentials WHERE token_hash = ?`),
      revoke: st(`UPDATE oauth1_token_credentials SET revoked = 1
        WHERE revoked = 0 AND (@user IS NULL OR user_name = @user) AND (@client IS NULL OR client_id = @client)`),
    };
  }

  async createConsumer(c: NewOAuth1Consumer): Promise<OAuth1Consumer> {
    const now = Date.now();
    this.run('create OAuth 1 consumer', () => this.db.transaction(() => {
      if (c.userName !== null && this.s.userExists!.get(c.userName) === undefined) throw userNotFound(c.userName);
      // One namespace for both kinds of client, so `roa client remove ID` names exactly one.
      if (this.s.oauth2ClientExists!.get(c.clientId) !== undefined) throw clientExists(c.clientId);
      const info = this.s.insertConsumer!.run(c.clientId, c.sealedSecret, c.rsaPublicKey, joinCallbacks(c.callbacks), c.userName, now);
      if (info.changes === 0) throw clientExists(c.clientId);
    }).immediate());
    return { ...c, callbacks: [...c.callbacks], createdAt: new Date(now) };
  }

  async getConsumer(clientId: string): Promise<OAuth1Consumer | undefined> {
    const row = this.run('read OAuth 1 consumer', () => this.s.consumerById!.get(clientId) as ConsumerRow | undefined);
    return row === undefined ? undefined : toConsumer(row);
  }

  async listConsumers(): Promise<OAuth1Consumer[]> {
    return this.run('list OAuth 1 consumers', () => this.s.listConsumers!.all() as ConsumerRow[]).map(toConsumer);
  }

  async removeConsumer(clientId: string): Promise<boolean> {
    // Its credentials go by ON DELETE CASCADE.
    noteTokenWrite();
    return this.run('remove OAuth 1 consumer', () => this.s.deleteConsumer!.run(clientId).changes > 0);
  }

  async saveTemporaryCredentials(t: NewOAuth1TemporaryCredentials, nowMs: number, maxLive: number): Promise<boolean> {
    return this.run('save OAuth 1 temporary credentials', () => this.db.transaction(() => {
      this.s.pruneTemporary!.run(nowMs);
      const { n } = this.s.countLiveTemporary!.get(t.clientId, nowMs) as { n: number };
      if (n >= maxLive) return false;
      this.s.insertTemporary!.run(t.tokenHash, t.sealedSecret, t.clientId, t.callback, t.expiresAtMs);
      return true;
    }).immediate());
  }

  async getTemporaryCredentials(tokenHash: string, nowMs: number): Promise<OAuth1TemporaryCredentials | undefined> {
    const row = this.run('read OAuth 1 temporary credentials', () => this.s.temporaryByHash!.get(tokenHash, nowMs) as TemporaryRow | undefined);
    return row === undefined ? undefined : toTemporary(row);
  }

  async approveTemporaryCredentials(tokenHash: string, a: { verifierHash: string; userName: string }, nowMs: number): Promise<boolean> {
    return this.run('approve OAuth 1 temporary credentials', () => this.s.approveTemporary!.run(a.verifierHash, a.userName, tokenHash, nowMs).changes > 0);
  }

  async deletePendingTemporaryCredentials(tokenHash: string): Promise<boolean> {
    return this.run('delete OAuth 1 temporary credentials', () => this.s.deletePendingTemporary!.run(tokenHash).changes > 0);
  }

  async exchangeTemporaryCredentials(
    tokenHash: string, nowMs: number, checkVerifier: (verifierHash: string) => boolean, issue: (approved: OAuth1TemporaryCredentials & { userName: string }) => NewOAuth1TokenCredentials,
  ): Promise<OAuth1Exchange> {
    return this.run('exchange OAuth 1 temporary credentials', () => this.db.transaction((): OAuth1Exchange => {
      const row = this.s.deleteTemporary!.get(tokenHash) as TemporaryRow | undefined;
      if (row === undefined) return { status: 'refused' };
      const t = toTemporary(row);
      if (t.expiresAtMs <= nowMs || t.verifierHash === null || t.userName === null || !checkVerifier(t.verifierHash)) return { status: 'refused' };
      const token = issue({ ...t, userName: t.userName });
      const createdAt = Date.now();
      noteTokenWrite();
      this.s.insertToken!.run(token.tokenHash, token.sealedSecret, token.clientId, token.userName, createdAt);
      return { status: 'issued', token: { ...token, createdAt: new Date(createdAt), revoked: false } };
    }).immediate());
  }

  async getTokenCredentials(tokenHash: string): Promise<OAuth1TokenCredentials | undefined> {
    return this.getTokenCredentialsNow(tokenHash);
  }

  private readonly readTokenRow = (tokenHash: string): TokenCredentialsRow | undefined => this.s.tokenByHash!.get(tokenHash) as TokenCredentialsRow | undefined;

  /** getTokenCredentials without a promise: the signed-request hot path (auth/oauth1/store-credentials) takes it when there. */
  getTokenCredentialsNow(tokenHash: string): OAuth1TokenCredentials | undefined {
    // The cache's data_version read is a statement too: a closed or broken database fails like the read
    // (cached row or not: a closed connection forgets them first).
    if (!this.db.open) this.tokenRows.reset();
    const row = this.run('read OAuth 1 token credentials', () => this.tokenRows.get(tokenHash, this.readTokenRow));
    // A fresh record each time: callers own what they are handed.
    return row === undefined ? undefined : toTokenCredentials(row);
  }

  async revokeTokenCredentials(filter: { userName?: string; clientId?: string }): Promise<number> {
    if (filter.userName === undefined && filter.clientId === undefined) throw new TypeError('revokeTokenCredentials needs a user or a client');
    return this.run('revoke OAuth 1 token credentials', () => this.revokeNow(filter));
  }

  /** The revocation as a plain statement, for a caller already inside a transaction (a password change). */
  revokeNow(filter: { userName?: string; clientId?: string }): number {
    if (filter.userName === undefined && filter.clientId === undefined) throw new TypeError('revokeTokenCredentials needs a user or a client');
    noteTokenWrite();
    return this.s.revoke!.run({ user: filter.userName ?? null, client: filter.clientId ?? null }).changes;
  }
}
