/** @module storage/sqlite/sqlite-oauth2 Redirect URIs and authorization codes on SQLite: each method is one synchronous transaction. */
import type { Database as Db, Statement } from 'better-sqlite3';
import { joinScopes } from '../conditions.js';
import { CODE_COLUMNS, CODE_RETENTION_MS, toCode, type AuthorizationCode, type CodeRedemption, type CodeRow, type NewAuthorizationCode, type NewRedirectClient, type OAuth2Store } from '../oauth2-records.js';
import { clientExists, userNotFound } from '../store-errors.js';
import type { NewToken, OAuthClient } from '../store.js';
import { noteTokenWrite } from './token-row-cache.js';

/** Runs a statement with the store's error mapping (driver errors become roa errors). */
export type SqliteRun = <T>(what: string, fn: () => T) => T;

/** The authorization code part of SqliteStore (`store.oauth2`). */
export class SqliteOAuth2 implements OAuth2Store {
  private readonly s: Record<'userExists' | 'consumerExists' | 'insertClient' | 'insertUri' | 'urisOf' | 'pruneCodes' | 'insertCode' | 'codeByHash' | 'markUsed' | 'spendCodesOf' | 'insertToken' | 'revokeFamily', Statement>;

  constructor(private readonly db: Db, private readonly run: SqliteRun) {
    const st = (sql: string): Statement => db.prepare(sql);
    this.s = {
      userExists: st('SELECT 1 FROM users WHERE name = ?'),
      consumerExists: st('SELECT 1 FROM oauth1_consumers WHERE client_id = ?'),
      insertClient: st(`INSERT INTO oauth_clients (client_id, secret_hash, user_name, scopes, created_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (client_id) DO NOTHING`),
      insertUri: st('INSERT INTO oauth2_redirect_uris (client_id, position, uri) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),
      urisOf: st('SELECT uri FROM oauth2_redirect_uris WHERE client_id = ? ORDER BY position'),
      pruneCodes: st('DELETE FROM oauth2_authorization_codes WHERE expires_at <= ?'),
      insertCode: st(`INSERT INTO oauth2_authorization_codes (${CODE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)`),
      codeByHash: st(`SELECT ${CODE_COLUMNS} FROM oauth2_authorization_codes WHERE hash = ?`),
      markUsed: st('UPDATE oauth2_authorization_codes SET used_at = ? WHERE hash = ? AND used_at IS NULL'),
      spendCodesOf: st('UPDATE oauth2_authorization_codes SET used_at = ? WHERE user_name = ? AND used_at IS NULL'),
      insertToken: st(`INSERT INTO oauth_tokens (hash, kind, client_id, user_name, scopes, family_id, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`),
      revokeFamily: st('UPDATE oauth_tokens SET revoked = 1 WHERE family_id = ? AND revoked = 0'),
    };
  }

  async createClient(c: NewRedirectClient): Promise<OAuthClient> {
    const now = Date.now();
    this.run('create client', () => this.db.transaction(() => {
      if (this.s.userExists.get(c.userName) === undefined) throw userNotFound(c.userName);
      // One namespace with OAuth 1 consumers, so `roa client remove ID` names exactly one.
      if (this.s.consumerExists.get(c.clientId) !== undefined) throw clientExists(c.clientId);
      if (this.s.insertClient.run(c.clientId, c.secretHash, c.userName, joinScopes(c.scopes), now).changes === 0) throw clientExists(c.clientId);
      c.redirectUris.forEach((uri, i) => this.s.insertUri.run(c.clientId, i, uri));
    }).immediate());
    return { clientId: c.clientId, secretHash: c.secretHash, userName: c.userName, scopes: [...c.scopes], createdAt: new Date(now) };
  }

  async redirectUris(clientId: string): Promise<string[]> {
    return this.run('read redirect URIs', () => (this.s.urisOf.all(clientId) as { uri: string }[]).map((r) => r.uri));
  }

  async saveCode(code: NewAuthorizationCode): Promise<void> {
    this.run('save authorization code', () => this.db.transaction(() => {
      this.s.pruneCodes.run(Date.now() - CODE_RETENTION_MS);
      this.s.insertCode.run(code.hash, code.clientId, code.userName, code.redirectUri, joinScopes(code.scopes), code.codeChallenge, code.familyId, Math.floor(code.expiresAtMs));
    }).immediate());
  }

  async getCode(hash: string): Promise<AuthorizationCode | undefined> {
    const row = this.run('read authorization code', () => this.s.codeByHash.get(hash) as CodeRow | undefined);
    return row === undefined ? undefined : toCode(row);
  }

  /**
   * Marks every unused code of the user used, for a caller inside a transaction (a password change
   * revoking the user's grants): a later exchange is then a replay. Returns how many.
   */
  spendCodesNow(userName: string): number {
    return this.s.spendCodesOf.run(Date.now(), userName).changes;
  }

  async redeemCode(hash: string, tokens: readonly NewToken[], nowMs: number): Promise<CodeRedemption> {
    noteTokenWrite();
    return this.run('redeem authorization code', () => this.db.transaction((): CodeRedemption => {
      const row = this.s.codeByHash.get(hash) as CodeRow | undefined;
      if (row === undefined) return 'missing';
      if (this.s.markUsed.run(Math.floor(nowMs), hash).changes === 0) {
        this.s.revokeFamily.run(row.family_id);
        return 'reused';
      }
      for (const t of tokens) this.s.insertToken.run(t.hash, t.kind, t.clientId, t.userName, joinScopes(t.scopes), t.familyId, t.expiresAt.getTime());
      return 'ok';
    }).immediate());
  }
}
