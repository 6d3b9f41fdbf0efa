/** @module storage/postgres/postgres-store The Store on PostgreSQL (pg Pool); row locks and ON CONFLICT make each write atomic. */
import pg from 'pg';
import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { conditionHolds, joinScopes } from '../conditions.js';
import { contentEtag } from '../etag.js';
import { migrationsTableSql, pendingMigrations, POSTGRES_DIALECT } from '../migrations.js';
import { clientExists, storeFailure, userExists, userNotFound } from '../store-errors.js';
import type {
  Article, ArticleInput, IdempotencyClaim, IdempotencyClaimResult, IdempotencyKeyRef, IdempotentResponse, NewToken, OAuthClient, Role, Store,
  TokenRecord, User, WriteCondition, WriteResult,
} from '../store.js';
import { CLAIM_SQL, rowToClaimResult, type IdempotencyRow } from '../idempotency-rows.js';
import { describeTarget, mapPgError } from './postgres-errors.js';
import { PostgresOAuth1 } from './postgres-oauth1.js';
import { PostgresOAuth2 } from './postgres-oauth2.js';
import type { ArticleRow, ClientRow, TokenRow, UserRow } from './postgres-rows.js';
import {
  ARTICLE_COLUMNS, CLIENT_COLUMNS, TOKEN_COLUMNS, toArticle, toClient, toToken, toUser, USER_COLUMNS,
} from './postgres-rows.js';

export interface PostgresStoreOptions {
  /** `postgres://user:pass@host:port/db` */
  connectionString: string;
  /** Schema holding roa's tables; created if absent and made the search_path of every pooled connection. */
  schema?: string;
  /** Pool size. Default 10. */
  max?: number;
  /** How long to wait for a connection before answering 503, in ms. Default 5000. */
  connectTimeoutMs?: number;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** Nonce consumption prunes expired rows at most this often per store. */
const PRUNE_INTERVAL_MS = 60_000;
/** A PUT that loses an insert race re-reads the winner's row; a concurrent DELETE may need another round. */
const PUT_ATTEMPTS = 5;

function quoteIdent(name: string): string {
  return `"${name}"`;
}

type Queryable = Pick<PoolClient, 'query'>;

async function one<R extends QueryResultRow>(c: Queryable, sql: string, params: unknown[]): Promise<R | undefined> {
  return (await c.query<R>(sql, params)).rows[0];
}

/**
 * A Store in a PostgreSQL database. Use `PostgresStore.open()` (or `openStore()`), which migrates and thereby
 * proves the database reachable; unreachable databases give HttpError 503 `ROA_ERR_STORE_UNAVAILABLE`.
 * @example
 *   const store = await PostgresStore.open({ connectionString: 'postgres://roa@db/roa', schema: 'roa' });
 */
export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  readonly schema: string | undefined;
  private readonly pool: Pool;
  private readonly target: string;
  private lastPrune = 0;
  private closed = false;
  readonly oauth1 = new PostgresOAuth1({ query: (what, sql, params) => this.q(what, sql, params), tx: (what, fn) => this.tx(what, fn) });
  readonly oauth2 = new PostgresOAuth2({
    query: (what, sql, params) => this.q(what, sql, params),
    tx: (what, fn) => this.tx(what, fn),
    lockFamily,
    insertToken: async (c, t) => void (await c.query(INSERT_TOKEN, tokenParams(t))),
    revokeFamily: async (c, familyId) => void (await c.query(REVOKE_FAMILY, [familyId])),
  });

  /** Migrates (creating the schema if needed) and returns a ready store; closes the pool on failure. */
  static async open(opts: PostgresStoreOptions): Promise<PostgresStore> {
    const store = new PostgresStore(opts);
    try {
      await store.migrate();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  }

  constructor(opts: PostgresStoreOptions) {
    // pg_ names are reserved for system schemas (CREATE SCHEMA refuses them).
    if (opts.schema !== undefined && (!SCHEMA_NAME.test(opts.schema) || /^pg_/i.test(opts.schema))) {
      throw new TypeError(`invalid PostgreSQL schema name "${opts.schema}": use a letter or _, then letters, digits and _ (at most 63), not starting with pg_`);
    }
    this.schema = opts.schema;
    this.target = describeTarget(opts.connectionString);
    this.pool = new pg.Pool({
      connectionString: opts.connectionString,
      max: opts.max ?? 10,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
      // A startup parameter rather than a SET after connect: it applies before any query on every pooled connection.
      ...(opts.schema === undefined ? {} : { options: `-c search_path=${quoteIdent(opts.schema)}` }),
    });
    // An idle connection dropped by the server emits 'error' on the pool; the pool discards it, and the next
    // query reports the outage, so this only keeps the process from crashing on an unhandled event.
    this.pool.on('error', () => {});
  }

  /** Applies pending migrations in one transaction under an advisory lock, so instances starting together don't race. */
  async migrate(): Promise<void> {
    await this.tx('migrate', async (c) => {
      await advisoryLock(c, `roa:migrate:${this.schema ?? ''}`);
      if (this.schema !== undefined) {
        await c.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.schema)}`);
        // The connection's search_path named a schema that may not have existed when it was resolved.
        await c.query(`SET LOCAL search_path TO ${quoteIdent(this.schema)}`);
      }
      await c.query(migrationsTableSql(POSTGRES_DIALECT));
      const applied = (await c.query<{ id: number }>('SELECT id FROM roa_migrations')).rows.map((r) => r.id);
      for (const m of pendingMigrations(applied)) {
        for (const sql of m.up(POSTGRES_DIALECT)) await c.query(sql);
        await c.query('INSERT INTO roa_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [m.id, m.name, new Date()]);
      }
    });
  }

  /** Round-trips a trivial query; throws the 503 HttpError when the database is unreachable. */
  async ping(): Promise<void> {
    await this.q('ping', 'SELECT 1', []);
  }

  async getArticleById(id: number): Promise<Article | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const rows = await this.q<ArticleRow>('read article', `SELECT ${ARTICLE_COLUMNS} FROM articles WHERE id = $1`, [id]);
    return rows[0] === undefined ? undefined : toArticle(rows[0]);
  }

  async getArticleBySlug(slug: string): Promise<Article | undefined> {
    const rows = await this.q<ArticleRow>('read article', `SELECT ${ARTICLE_COLUMNS} FROM articles WHERE slug = $1`, [slug]);
    return rows[0] === undefined ? undefined : toArticle(rows[0]);
  }

  async listArticles(opts: { limit: number; afterId?: number }): Promise<Article[]> {
    const limit = Math.max(0, Math.floor(opts.limit));
    const rows = await this.q<ArticleRow>(
      'list articles', `SELECT ${ARTICLE_COLUMNS} FROM articles WHERE id > $1 ORDER BY id LIMIT $2`, [opts.afterId ?? 0, limit],
    );
    return rows.map(toArticle);
  }

  async createArticle(input: ArticleInput, owner: string): Promise<Article> {
    const now = new Date();
    const rows = await this.q<ArticleRow>('create article', `INSERT INTO articles
      (title, amount, currency, owner, etag, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
      RETURNING ${ARTICLE_COLUMNS}`, [input.title, input.price.amount, input.price.currency, owner, contentEtag(input), now]);
    return toArticle(rows[0]!);
  }

  async putArticleBySlug(slug: string, input: ArticleInput, owner: string, cond?: WriteCondition): Promise<WriteResult> {
    return this.tx('put article', async (c): Promise<WriteResult> => {
      for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt++) {
        const row = await one<ArticleRow>(c, `SELECT ${ARTICLE_COLUMNS} FROM articles WHERE slug = $1 FOR UPDATE`, [slug]);
        if (row !== undefined) return replaceRow(c, row, input, cond);
        if (!conditionHolds(undefined, cond)) return { status: 'precondition-failed' };
        const now = new Date();
        // ON CONFLICT waits for a concurrent insert of the same slug; if that one commits we insert nothing and
        // loop, and the next SELECT (a fresh snapshot under READ COMMITTED) locks the winner's row.
        const inserted = await one<ArticleRow>(c, `INSERT INTO articles
          (slug, title, amount, currency, owner, etag, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
          ON CONFLICT (slug) DO NOTHING RETURNING ${ARTICLE_COLUMNS}`,
          [slug, input.title, input.price.amount, input.price.currency, owner, contentEtag(input), now]);
        if (inserted !== undefined) return { status: 'created', article: toArticle(inserted) };
      }
      throw storeFailure(`PUT of slug "${slug}" kept racing with concurrent writers`);
    });
  }

  async replaceArticle(id: number, input: ArticleInput, cond?: WriteCondition): Promise<WriteResult> {
    if (!Number.isSafeInteger(id)) return { status: 'missing' };
    return this.tx('replace article', async (c): Promise<WriteResult> => {
      const row = await one<ArticleRow>(c, `SELECT ${ARTICLE_COLUMNS} FROM articles WHERE id = $1 FOR UPDATE`, [id]);
      // RFC 9110 §13.2.1: preconditions are ignored when the answer would be 404 anyway.
      if (row === undefined) return { status: 'missing' };
      return replaceRow(c, row, input, cond);
    });
  }

  async deleteArticle(id: number, cond?: WriteCondition): Promise<'deleted' | 'missing' | 'precondition-failed'> {
    if (!Number.isSafeInteger(id)) return 'missing';
    return this.tx('delete article', async (c) => {
      const row = await one<{ etag: string }>(c, 'SELECT etag FROM articles WHERE id = $1 FOR UPDATE', [id]);
      if (row === undefined) return 'missing' as const;
      if (!conditionHolds(row.etag, cond)) return 'precondition-failed' as const;
      await c.query('DELETE FROM articles WHERE id = $1', [id]);
      return 'deleted' as const;
    });
  }

  async createUser(u: { name: string; role: Role; passwordHash: string; hmacSecret?: string | null }): Promise<User> {
    const rows = await this.q<UserRow>('create user', `INSERT INTO users (${USER_COLUMNS}) VALUES ($1, $2, $3, $4, $5)
      ON CONFLICT (name) DO NOTHING RETURNING ${USER_COLUMNS}`, [u.name, u.role, u.passwordHash, u.hmacSecret ?? null, new Date()]);
    if (rows[0] === undefined) throw userExists(u.name);
    return toUser(rows[0]);
  }

  async getUser(name: string): Promise<User | undefined> {
    const rows = await this.q<UserRow>('read user', `SELECT ${USER_COLUMNS} FROM users WHERE name = $1`, [name]);
    return rows[0] === undefined ? undefined : toUser(rows[0]);
  }

  async listUsers(): Promise<User[]> {
    // COLLATE "C" orders by code point, as SQLite's default BINARY collation does.
    return (await this.q<UserRow>('list users', `SELECT ${USER_COLUMNS} FROM users ORDER BY name COLLATE "C"`, [])).map(toUser);
  }

  async removeUser(name: string): Promise<boolean> {
    // Clients go by ON DELETE CASCADE; tokens carry no foreign key, so they go explicitly.
    return this.tx('remove user', async (c) => {
      await c.query(`DELETE FROM oauth_tokens WHERE user_name = $1
        OR client_id IN (SELECT client_id FROM oauth_clients WHERE user_name = $1)`, [name]);
      return ((await c.query('DELETE FROM users WHERE name = $1', [name])).rowCount ?? 0) > 0;
    });
  }

  async setUserHmacSecret(name: string, secret: string | null): Promise<boolean> {
    return (await this.count('update user', 'UPDATE users SET hmac_secret = $1 WHERE name = $2', [secret, name])) > 0;
  }

  async setUserPassword(name: string, passwordHash: string): Promise<boolean> {
    return (await this.count('update user', 'UPDATE users SET password_hash = $1 WHERE name = $2', [passwordHash, name])) > 0;
  }

  async setUserRole(name: string, role: Role): Promise<boolean> {
    return (await this.count('update user', 'UPDATE users SET role = $1 WHERE name = $2', [role, name])) > 0;
  }

  async createClient(c: { clientId: string; secretHash: string; userName: string; scopes: string[] }): Promise<OAuthClient> {
    return this.tx('create client', async (t) => {
      // KEY SHARE keeps the user from being removed before the insert commits.
      if (await one(t, 'SELECT 1 FROM users WHERE name = $1 FOR KEY SHARE', [c.userName]) === undefined) throw userNotFound(c.userName);
      const row = await one<ClientRow>(t, `INSERT INTO oauth_clients (${CLIENT_COLUMNS}) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (client_id) DO NOTHING RETURNING ${CLIENT_COLUMNS}`,
        [c.clientId, c.secretHash, c.userName, joinScopes(c.scopes), new Date()]);
      if (row === undefined) throw clientExists(c.clientId);
      return toClient(row);
    });
  }

  async getClient(clientId: string): Promise<OAuthClient | undefined> {
    const rows = await this.q<ClientRow>('read client', `SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE client_id = $1`, [clientId]);
    return rows[0] === undefined ? undefined : toClient(rows[0]);
  }

  async listClients(): Promise<OAuthClient[]> {
    const rows = await this.q<ClientRow>('list clients', `SELECT ${CLIENT_COLUMNS} FROM oauth_clients ORDER BY client_id COLLATE "C"`, []);
    return rows.map(toClient);
  }

  async removeClient(clientId: string): Promise<boolean> {
    return this.tx('remove client', async (c) => {
      await c.query('DELETE FROM oauth_tokens WHERE client_id = $1', [clientId]);
      return ((await c.query('DELETE FROM oauth_clients WHERE client_id = $1', [clientId])).rowCount ?? 0) > 0;
    });
  }

  async saveToken(t: NewToken): Promise<void> {
    await this.q('save token', INSERT_TOKEN, tokenParams(t));
  }

  async getToken(hash: string): Promise<TokenRecord | undefined> {
    const rows = await this.q<TokenRow>('read token', `SELECT ${TOKEN_COLUMNS} FROM oauth_tokens WHERE hash = $1`, [hash]);
    return rows[0] === undefined ? undefined : toToken(rows[0]);
  }

  async rotateRefreshToken(hash: string, successors: readonly NewToken[]): Promise<'ok' | 'reused' | 'missing'> {
    return this.tx('rotate token', async (c) => {
      const found = await c.query<{ family_id: string; user_name: string }>(`SELECT family_id, user_name FROM oauth_tokens WHERE hash = $1 AND kind = 'refresh'`, [hash]);
      const row = found.rows[0];
      if (row === undefined) return 'missing';
      const familyId = row.family_id;
      await lockFamily(c, familyId);
      await lockUser(c, row.user_name, 'shared');
      const marked = await c.query(`UPDATE oauth_tokens SET used_at = $1 WHERE hash = $2 AND used_at IS NULL AND NOT revoked`, [new Date(), hash]);
      if ((marked.rowCount ?? 0) > 0) {
        for (const t of successors) await c.query(INSERT_TOKEN, tokenParams(t));
        return 'ok';
      }
      // Already used, or revoked: either way a replay (RFC 9700 §4.14.2).
      await c.query(REVOKE_FAMILY, [familyId]);
      return 'reused';
    });
  }

  async revokeUserTokens(userName: string): Promise<number> {
    return this.tx('revoke tokens', async (c) => {
      // Waits for rotations of this user's families in flight; the UPDATE then sees their successors.
      await lockUser(c, userName, 'exclusive');
      const oauth2 = (await c.query('UPDATE oauth_tokens SET revoked = TRUE WHERE user_name = $1 AND NOT revoked', [userName])).rowCount ?? 0;
      return oauth2 + await PostgresOAuth1.revokeUserIn(c, userName) + await PostgresOAuth2.spendCodesIn(c, userName);
    });
  }

  async revokeToken(hash: string): Promise<boolean> {
    return (await this.count('revoke token', 'UPDATE oauth_tokens SET revoked = TRUE WHERE hash = $1', [hash])) > 0;
  }

  async revokeFamily(familyId: string): Promise<number> {
    return this.tx('revoke tokens', async (c) => {
      await lockFamily(c, familyId);
      return (await c.query(REVOKE_FAMILY, [familyId])).rowCount ?? 0;
    });
  }

  async consumeNonce(key: string, expiresAtMs: number): Promise<boolean> {
    const now = Date.now();
    if (now - this.lastPrune >= PRUNE_INTERVAL_MS) {
      this.lastPrune = now;
      await this.q('prune nonces', 'DELETE FROM nonces WHERE expires_at <= $1', [now]);
    }
    // One statement: a fresh key inserts; an expired one is taken over; a live one returns no row.
    const rows = await this.q('consume nonce', `INSERT INTO nonces (key, expires_at) VALUES ($1, $2)
      ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE nonces.expires_at <= $3
      RETURNING 1`, [key, Math.floor(expiresAtMs), now]);
    return rows.length > 0;
  }

  async claimIdempotencyKey(c: IdempotencyClaim): Promise<IdempotencyClaimResult> {
    const params = [c.caller, c.key, c.token, c.fingerprint, Math.floor(c.lockedUntilMs), Math.floor(c.expiresAtMs), Math.floor(c.nowMs)];
    // The upsert and the read are two statements: a key released in between is gone, and is claimed again.
    for (let attempt = 0; attempt < PUT_ATTEMPTS; attempt++) {
      if ((await this.count('claim idempotency key', CLAIM_SQL, params)) > 0) return { state: 'claimed' };
      const rows = await this.q<IdempotencyRow>('read idempotency key',
        'SELECT fingerprint, status, headers, body FROM idempotency_keys WHERE caller = $1 AND key = $2', [c.caller, c.key]);
      if (rows[0] !== undefined) return rowToClaimResult(rows[0]);
    }
    throw storeFailure(`claim of idempotency key kept racing with concurrent requests`);
  }

  async completeIdempotencyKey(ref: IdempotencyKeyRef, response: IdempotentResponse): Promise<boolean> {
    return (await this.count('store idempotent response', `UPDATE idempotency_keys SET status = $1, headers = $2, body = $3,
      locked_until = NULL WHERE caller = $4 AND key = $5 AND token = $6`,
    [response.status, JSON.stringify(response.headers), response.body, ref.caller, ref.key, ref.token])) > 0;
  }

  async releaseIdempotencyKey(ref: IdempotencyKeyRef): Promise<boolean> {
    return (await this.count('release idempotency key', 'DELETE FROM idempotency_keys WHERE caller = $1 AND key = $2 AND token = $3',
      [ref.caller, ref.key, ref.token])) > 0;
  }

  async sweepIdempotencyKeys(nowMs: number, limit: number): Promise<number> {
    return this.count('sweep idempotency keys', `DELETE FROM idempotency_keys WHERE (caller, key) IN
      (SELECT caller, key FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)`, [Math.floor(nowMs), Math.max(0, Math.floor(limit))]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private async q<R extends QueryResultRow = QueryResultRow>(what: string, sql: string, params: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>(sql, params)).rows;
    } catch (err) {
      throw mapPgError(err, what, this.target);
    }
  }

  private async count(what: string, sql: string, params: unknown[]): Promise<number> {
    try {
      return (await this.pool.query(sql, params)).rowCount ?? 0;
    } catch (err) {
      throw mapPgError(err, what, this.target);
    }
  }

  /** Runs `fn` in a READ COMMITTED transaction on one pooled connection; any error rolls back and is mapped. */
  private async tx<T>(what: string, fn: (c: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw mapPgError(err, what, this.target);
    }
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackErr) {
        // A connection that cannot roll back must not return to the pool.
        broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
      }
      throw mapPgError(err, what, this.target);
    } finally {
      client.release(broken);
    }
  }
}

const INSERT_TOKEN = `INSERT INTO oauth_tokens (hash, kind, client_id, user_name, scopes, family_id, expires_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7)`;
const REVOKE_FAMILY = 'UPDATE oauth_tokens SET revoked = TRUE WHERE family_id = $1 AND NOT revoked';

function tokenParams(t: NewToken): unknown[] {
  return [t.hash, t.kind, t.clientId, t.userName, joinScopes(t.scopes), t.familyId, t.expiresAt];
}

/**
 * Serialises everything that changes one token family (rotation, reuse, revocation) until the end of
 * the transaction. Row locks alone are not enough under READ COMMITTED: a revocation that waited for a
 * rotation's row lock would not see the successors that rotation inserted, and they would stay live.
 * Statements after the lock see every family change committed before it.
 */
async function lockFamily(c: Queryable, familyId: string): Promise<void> {
  await advisoryLock(c, `roa:token-family:${familyId}`, 'exclusive');
}

/**
 * Revoking every token of a user (a password change) takes the user's lock exclusively; a rotation
 * takes it shared, after its family lock, so rotations of one user's families still run side by
 * side. Without it the revocation's UPDATE, under READ COMMITTED, missed the successors of a rotation
 * that committed while it ran, and they stayed live after the password change. Lock order is
 * always family before user, and revocation takes no family lock: no cycle.
 */
async function lockUser(c: Queryable, userName: string, mode: 'exclusive' | 'shared'): Promise<void> {
  await advisoryLock(c, `roa:token-user:${userName}`, mode);
}

/** A transaction-scoped advisory lock on a text key, held until commit or rollback. */
async function advisoryLock(c: Queryable, key: string, mode: 'exclusive' | 'shared' = 'exclusive'): Promise<void> {
  await c.query(mode === 'shared' ? 'SELECT pg_advisory_xact_lock_shared(hashtext($1))' : 'SELECT pg_advisory_xact_lock(hashtext($1))', [key]);
}

/** Body of a replace; runs inside the caller's transaction holding the row lock on `row`. */
async function replaceRow(c: Queryable, row: ArticleRow, input: ArticleInput, cond: WriteCondition | undefined): Promise<WriteResult> {
  const current = toArticle(row);
  if (!conditionHolds(row.etag, cond)) return { status: 'precondition-failed', current };
  const etag = contentEtag(input);
  if (etag === row.etag) return { status: 'replaced', article: current, changed: false };
  const updated = await one<ArticleRow>(c, `UPDATE articles SET title = $1, amount = $2, currency = $3, etag = $4, updated_at = $5
    WHERE id = $6 RETURNING ${ARTICLE_COLUMNS}`, [input.title, input.price.amount, input.price.currency, etag, new Date(), row.id]);
  return { status: 'replaced', article: toArticle(updated!), changed: true };
}
