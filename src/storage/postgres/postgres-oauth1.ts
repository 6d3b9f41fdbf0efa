/** @module storage/postgres/postgres-oauth1 OAuth 1.0a records on PostgreSQL; each change is one statement or one transaction. */
import type { PoolClient, QueryResultRow } from 'pg';
import { clientExists, userNotFound } from '../store-errors.js';
import {
  CONSUMER_COLUMNS, joinCallbacks, TEMPORARY_COLUMNS, TOKEN_CREDENTIALS_COLUMNS, toConsumer, toTemporary, toTokenCredentials,
  type ConsumerRow, type NewOAuth1Consumer, type NewOAuth1TemporaryCredentials, type NewOAuth1TokenCredentials, type OAuth1Consumer,
  type OAuth1Exchange, type OAuth1Store, type OAuth1TemporaryCredentials, type OAuth1TokenCredentials, type TemporaryRow, type TokenCredentialsRow,
} from '../oauth1-records.js';

/** What the store lends this part: queries and transactions with its error mapping. */
export interface PostgresAccess {
  query<R extends QueryResultRow>(what: string, sql: string, params: unknown[]): Promise<R[]>;
  tx<T>(what: string, fn: (c: PoolClient) => Promise<T>): Promise<T>;
}

const REVOKE = `UPDATE oauth1_token_credentials SET revoked = TRUE
  WHERE NOT revoked AND ($1::text IS NULL OR user_name = $1) AND ($2::text IS NULL OR client_id = $2)`;

/** The OAuth 1.0a part of PostgresStore (`store.oauth1`). */
export class PostgresOAuth1 implements OAuth1Store {
  constructor(private readonly db: PostgresAccess) {}

  async createConsumer(c: NewOAuth1Consumer): Promise<OAuth1Consumer> {
    return this.db.tx('create OAuth 1 consumer', async (t) => {
      // KEY SHARE keeps the user from being removed before the insert commits.
      if (c.userName !== null && (await t.query('SELECT 1 FROM users WHERE name = $1 FOR KEY SHARE', [c.userName])).rows.length === 0) {
        throw userNotFound(c.userName);
      }
      // One namespace for both kinds of client, so `roa client remove ID` names exactly one.
      if ((await t.query('SELECT 1 FROM oauth_clients WHERE client_id = $1', [c.clientId])).rows.length > 0) throw clientExists(c.clientId);
      const rows = (await t.query<ConsumerRow>(`INSERT INTO oauth1_consumers (${CONSUMER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)
        ON CONFLICT (client_id) DO NOTHING RETURNING ${CONSUMER_COLUMNS}`,
      [c.clientId, c.sealedSecret, c.rsaPublicKey, joinCallbacks(c.callbacks), c.userName, Date.now()])).rows;
      if (rows[0] === undefined) throw clientExists(c.clientId);
      return toConsumer(rows[0]);
    });
  }

  async getConsumer(clientId: string): Promise<OAuth1Consumer | undefined> {
    const rows = await this.db.query<ConsumerRow>('read OAuth 1 consumer', `SELECT ${CONSUMER_COLUMNS} FROM oauth1_consumers WHERE client_id = $1`, [clientId]);
    return rows[0] === undefined ? undefined : toConsumer(rows[0]);
  }

  async listConsumers(): Promise<OAuth1Consumer[]> {
    const rows = await this.db.query<ConsumerRow>('list OAuth 1 consumers', `SELECT ${CONSUMER_COLUMNS} FROM oauth1_consumers ORDER BY client_id COLLATE "C"`, []);
    return rows.map(toConsumer);
  }

  async removeConsumer(clientId: string): Promise<boolean> {
    // Its credentials go by ON DELETE CASCADE.
    return (await this.db.query('remove OAuth 1 consumer', 'DELETE FROM oauth1_consumers WHERE client_id = $1 RETURNING 1', [clientId])).length > 0;
  }

  async saveTemporaryCredentials(t: NewOAuth1TemporaryCredentials, nowMs: number, maxLive: number): Promise<boolean> {
    return this.db.tx('save OAuth 1 temporary credentials', async (c) => {
      // Serialises the count and the insert per consumer, so racing requests cannot overshoot the limit.
      await c.query('SELECT 1 FROM oauth1_consumers WHERE client_id = $1 FOR UPDATE', [t.clientId]);
      await c.query('DELETE FROM oauth1_temporary_credentials WHERE client_id = $1 AND expires_at <= $2', [t.clientId, nowMs]);
      const { rows } = await c.query<{ n: string }>('SELECT count(*) AS n FROM oauth1_temporary_credentials WHERE client_id = $1', [t.clientId]);
      if (Number(rows[0]!.n) >= maxLive) return false;
      await c.query('INSERT INTO oauth1_temporary_credentials (token_hash, secret, client_id, callback, expires_at) VALUES ($1, $2, $3, $4, $5)',
        [t.tokenHash, t.sealedSecret, t.clientId, t.callback, t.expiresAtMs]);
      return true;
    });
  }

  async getTemporaryCredentials(tokenHash: string, nowMs: number): Promise<OAuth1TemporaryCredentials | undefined> {
    const rows = await this.db.query<TemporaryRow>('read OAuth 1 temporary credentials',
      `SELECT ${TEMPORARY_COLUMNS} FROM oauth1_temporary_credentials WHERE token_hash = $1 AND expires_at > $2`, [tokenHash, nowMs]);
    return rows[0] === undefined ? undefined : toTemporary(rows[0]);
  }

  async approveTemporaryCredentials(tokenHash: string, a: { verifierHash: string; userName: string }, nowMs: number): Promise<boolean> {
    const rows = await this.db.query('approve OAuth 1 temporary credentials', `UPDATE oauth1_temporary_credentials SET verifier_hash = $1, user_name = $2
      WHERE token_hash = $3 AND expires_at > $4 AND verifier_hash IS NULL RETURNING 1`, [a.verifierHash, a.userName, tokenHash, nowMs]);
    return rows.length > 0;
  }

  async deletePendingTemporaryCredentials(tokenHash: string): Promise<boolean> {
    return (await this.db.query('delete OAuth 1 temporary credentials', 'DELETE FROM oauth1_temporary_credentials WHERE token_hash = $1 AND verifier_hash IS NULL RETURNING 1', [tokenHash])).length > 0;
  }

  async exchangeTemporaryCredentials(
    tokenHash: string, nowMs: number, checkVerifier: (verifierHash: string) => boolean, issue: (approved: OAuth1TemporaryCredentials & { userName: string }) => NewOAuth1TokenCredentials,
  ): Promise<OAuth1Exchange> {
    return this.db.tx('exchange OAuth 1 temporary credentials', async (c): Promise<OAuth1Exchange> => {
      // The DELETE takes the row: of two racing exchanges, only one gets it back.
      const row = (await c.query<TemporaryRow>(`DELETE FROM oauth1_temporary_credentials WHERE token_hash = $1 RETURNING ${TEMPORARY_COLUMNS}`, [tokenHash])).rows[0];
      if (row === undefined) return { status: 'refused' };
      const t = toTemporary(row);
      if (t.expiresAtMs <= nowMs || t.verifierHash === null || t.userName === null || !checkVerifier(t.verifierHash)) return { status: 'refused' };
      const token = issue({ ...t, userName: t.userName });
      const inserted = (await c.query<TokenCredentialsRow>(`INSERT INTO oauth1_token_credentials (token_hash, secret, client_id, user_name, created_at)
        VALUES ($1, $2, $3, $4, $5) RETURNING ${TOKEN_CREDENTIALS_COLUMNS}`, [token.tokenHash, token.sealedSecret, token.clientId, token.userName, Date.now()])).rows[0]!;
      return { status: 'issued', token: toTokenCredentials(inserted) };
    });
  }

  async getTokenCredentials(tokenHash: string): Promise<OAuth1TokenCredentials | undefined> {
    const rows = await this.db.query<TokenCredentialsRow>('read OAuth 1 token credentials',
      `SELECT ${TOKEN_CREDENTIALS_COLUMNS} FROM oauth1_token_credentials WHERE token_hash = $1`, [tokenHash]);
    return rows[0] === undefined ? undefined : toTokenCredentials(rows[0]);
  }

  async revokeTokenCredentials(filter: { userName?: string; clientId?: string }): Promise<number> {
    if (filter.userName === undefined && filter.clientId === undefined) throw new TypeError('revokeTokenCredentials needs a user or a client');
    return (await this.db.query('revoke OAuth 1 token credentials', REVOKE + ' RETURNING 1', [filter.userName ?? null, filter.clientId ?? null])).length;
  }

  /** The revocation on the connection of a caller's transaction (a password change). */
  static async revokeUserIn(c: Pick<PoolClient, 'query'>, userName: string): Promise<number> {
    return (await c.query(REVOKE, [userName, null])).rowCount ?? 0;
  }
}
