/** @module storage/postgres/postgres-oauth2 Redirect URIs and authorization codes on PostgreSQL. */
import type { PoolClient, QueryResultRow } from 'pg';
import { joinScopes } from '../conditions.js';
import { CODE_COLUMNS, CODE_RETENTION_MS, toCode, type AuthorizationCode, type CodeRedemption, type CodeRow, type NewAuthorizationCode, type NewRedirectClient, type OAuth2Store } from '../oauth2-records.js';
import { clientExists, userNotFound } from '../store-errors.js';
import type { NewToken, OAuthClient } from '../store.js';

/** What PostgresStore lends: its error-mapped query and transaction, and the token-family steps it owns. */
export interface PostgresOAuth2Deps {
  query<R extends QueryResultRow>(what: string, sql: string, params: unknown[]): Promise<R[]>;
  tx<T>(what: string, fn: (c: PoolClient) => Promise<T>): Promise<T>;
  /** Takes the family's lock (serialising with rotations and revocations of it) inside `c`'s transaction. */
  lockFamily(c: PoolClient, familyId: string): Promise<void>;
  insertToken(c: PoolClient, t: NewToken): Promise<void>;
  revokeFamily(c: PoolClient, familyId: string): Promise<void>;
}

/** The authorization code part of PostgresStore (`store.oauth2`). */
export class PostgresOAuth2 implements OAuth2Store {
  constructor(private readonly d: PostgresOAuth2Deps) {}

  async createClient(c: NewRedirectClient): Promise<OAuthClient> {
    return this.d.tx('create client', async (t) => {
      // KEY SHARE keeps the user from being removed before the insert commits.
      if ((await t.query('SELECT 1 FROM users WHERE name = $1 FOR KEY SHARE', [c.userName])).rowCount === 0) throw userNotFound(c.userName);
      if ((await t.query('SELECT 1 FROM oauth1_consumers WHERE client_id = $1', [c.clientId])).rowCount !== 0) throw clientExists(c.clientId);
      const created = new Date();
      const inserted = await t.query(`INSERT INTO oauth_clients (client_id, secret_hash, user_name, scopes, created_at) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (client_id) DO NOTHING`, [c.clientId, c.secretHash, c.userName, joinScopes(c.scopes), created]);
      if (inserted.rowCount === 0) throw clientExists(c.clientId);
      for (const [i, uri] of c.redirectUris.entries()) {
        await t.query('INSERT INTO oauth2_redirect_uris (client_id, position, uri) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [c.clientId, i, uri]);
      }
      return { clientId: c.clientId, secretHash: c.secretHash, userName: c.userName, scopes: [...c.scopes], createdAt: created };
    });
  }

  async redirectUris(clientId: string): Promise<string[]> {
    const rows = await this.d.query<{ uri: string }>('read redirect URIs', 'SELECT uri FROM oauth2_redirect_uris WHERE client_id = $1 ORDER BY position', [clientId]);
    return rows.map((r) => r.uri);
  }

  async saveCode(code: NewAuthorizationCode): Promise<void> {
    await this.d.query('prune authorization codes', 'DELETE FROM oauth2_authorization_codes WHERE expires_at <= $1', [Date.now() - CODE_RETENTION_MS]);
    await this.d.query('save authorization code', `INSERT INTO oauth2_authorization_codes (${CODE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)`,
      [code.hash, code.clientId, code.userName, code.redirectUri, joinScopes(code.scopes), code.codeChallenge, code.familyId, Math.floor(code.expiresAtMs)]);
  }

  async getCode(hash: string): Promise<AuthorizationCode | undefined> {
    const rows = await this.d.query<CodeRow>('read authorization code', `SELECT ${CODE_COLUMNS} FROM oauth2_authorization_codes WHERE hash = $1`, [hash]);
    return rows[0] === undefined ? undefined : toCode(rows[0]);
  }

  /**
   * Marks every unused code of the user used inside `c`'s transaction (a password change revoking the
   * user's grants): a later exchange is then a replay. Returns how many.
   */
  static async spendCodesIn(c: Pick<PoolClient, 'query'>, userName: string): Promise<number> {
    return (await c.query('UPDATE oauth2_authorization_codes SET used_at = $1 WHERE user_name = $2 AND used_at IS NULL', [Date.now(), userName])).rowCount ?? 0;
  }

  async redeemCode(hash: string, tokens: readonly NewToken[], nowMs: number): Promise<CodeRedemption> {
    return this.d.tx('redeem authorization code', async (c) => {
      // The row lock makes a second exchange wait for the first to commit, then see the code used.
      const found = await c.query<{ family_id: string; used_at: string | null }>('SELECT family_id, used_at FROM oauth2_authorization_codes WHERE hash = $1 FOR UPDATE', [hash]);
      const row = found.rows[0];
      if (row === undefined) return 'missing';
      await this.d.lockFamily(c, row.family_id);
      if (row.used_at !== null) {
        await this.d.revokeFamily(c, row.family_id);
        return 'reused';
      }
      await c.query('UPDATE oauth2_authorization_codes SET used_at = $1 WHERE hash = $2', [Math.floor(nowMs), hash]);
      for (const t of tokens) await this.d.insertToken(c, t);
      return 'ok';
    });
  }
}
