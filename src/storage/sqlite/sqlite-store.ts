/** @module storage/sqlite/sqlite-store The Store on SQLite (better-sqlite3): one synchronous connection, so each call is atomic. */
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { conditionHolds, joinScopes } from '../conditions.js';
import { contentEtag } from '../etag.js';
import { migrationsTableSql, pendingMigrations, SQLITE_DIALECT } from '../migrations.js';
import { clientExists, storeFailure, storeUnavailable, userExists, userNotFound } from '../store-errors.js';
import type {
  Article, ArticleInput, IdempotencyClaim, IdempotencyClaimResult, IdempotencyKeyRef, IdempotentResponse, NewToken, OAuthClient, Role, Store,
  TokenRecord, User, WriteCondition, WriteResult,
} from '../store.js';
import type { ArticleRow, ClientRow, TokenRow, UserRow } from './sqlite-rows.js';
import { toArticle, toClient, toToken, toUser } from './sqlite-rows.js';
import { prepareStatements } from './sqlite-statements.js';
import { DEFAULT_NONCE_MEMORY_LIMIT, type SqliteNonces } from './sqlite-nonces.js';
import { SqliteNonceLog } from './sqlite-nonce-log.js';
import { SqliteNonceTable } from './sqlite-nonce-table.js';
import { SqliteIdempotency } from './sqlite-idempotency.js';
import { SqliteOAuth1 } from './sqlite-oauth1.js';
import { SqliteOAuth2 } from './sqlite-oauth2.js';
import { noteTokenWrite, TokenRowCache } from './token-row-cache.js';
import { HttpError } from '../../errors/http-error.js';

export interface SqliteStoreOptions {
  /** How long a writer waits for another process's lock before failing, in ms. Default 5000. */
  busyTimeoutMs?: number;
  /**
   * Replay-protection nonces in an append-only log indexed in memory (`SqliteNonceLog`) instead of
   * the table keyed by nonce (`SqliteNonceTable`, the default): for very high signed-request rates on
   * one file, where the table's random-page writes dominate. Switching either way keeps every
   * recorded nonce refused (the log consults the table; the table reads what the log holds live when
   * it opens), but processes sharing the file at the same time should use the same mode: a table does
   * not see what a log appends after it opened.
   */
  nonceLog?: boolean;
  /**
   * With `nonceLog`: nonces kept in memory (the log is read back on open); past this many live ones,
   * new nonces go to the key-ordered table instead, slower but exact. Default 1,000,000 (32 MiB).
   * A nonce lives as long as its Date stays acceptable (the clock skew, 10 minutes by default), so the
   * default holds ~1,660 replay-protected requests per second sustained.
   */
  nonceMemoryLimit?: number;
}

interface PendingNonce {
  key: string;
  expiresAtMs: number;
  resolve: (fresh: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * With background checkpoints the writer's own automatic checkpoint moves from SQLite's default
 * 1000 pages to this many: only a backstop should the worker fall behind or fail.
 */
const BACKSTOP_CHECKPOINT_PAGES = 20_000;
const CHECKPOINT_INTERVAL_MS = 200;
const requireHere = createRequire(import.meta.url);

/**
 * The checkpoint worker (CommonJS source, run with `eval` so it needs no file of its own next to
 * either the compiled or the TypeScript module): checkpoints the WAL on its own connection, so
 * copying pages back into the database file, and the fsyncs that go with it, never block the event
 * loop (better-sqlite3 is synchronous; with automatic checkpoints every thousandth page a request
 * paid for them). PASSIVE checkpoints neither wait for nor block the writer; when one fails (busy,
 * file gone) the writer's raised automatic checkpoint still bounds the WAL.
 */
const CHECKPOINT_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {}
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** Turns a better-sqlite3 error into a roa error; roa errors pass through untouched. */
function mapError(err: unknown, what: string): Error {
  if (err instanceof HttpError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return storeUnavailable(`SQLite database is busy (${what})`, err);
  if (typeof code === 'string' && /^SQLITE_(CANTOPEN|READONLY|IOERR|FULL|PERM|NOTADB|CORRUPT)/.test(code)) {
    return storeUnavailable(`SQLite database unusable (${what}): ${message}`, err);
  }
  return storeFailure(`SQLite ${what} failed: ${message}`, err);
}

/**
 * A Store kept in one SQLite file (or in memory). Opens, migrates and prepares its statements in the constructor,
 * so a constructed store is ready; a path it cannot open throws a 503 HttpError with a one-line message.
 * @example
 *   const store = new SqliteStore('./data/roa.db');
 *   const article = await store.createArticle({ title: 'Tea', price: { amount: '3.50', currency: 'EUR' } }, 'ann');
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly path: string;
  private readonly db: Db;
  private readonly s: ReturnType<typeof prepareStatements>;
  private readonly nonces: SqliteNonces;
  private readonly idempotency: SqliteIdempotency;
  readonly oauth1: SqliteOAuth1;
  readonly oauth2: SqliteOAuth2;
  private nonceBatch: PendingNonce[] | undefined;
  private checkpointer: Worker | undefined;
  /** Token rows reused until the database may have changed (see token-row-cache). */
  private readonly tokenRows: TokenRowCache;

  constructor(path: string, opts: SqliteStoreOptions = {}) {
    this.path = path;
    const nonceMemoryLimit = opts.nonceMemoryLimit ?? DEFAULT_NONCE_MEMORY_LIMIT;
    if (!Number.isSafeInteger(nonceMemoryLimit) || nonceMemoryLimit < 1) {
      throw new RangeError(`nonceMemoryLimit must be a positive integer, got ${String(opts.nonceMemoryLimit)}`);
    }
    const memory = path === ':memory:' || path === '';
    let db: Db | undefined;
    try {
      if (!memory) {
        makeParentDirs(path);
        // The file holds password hashes, sealed HMAC secrets and token hashes: only its owner reads
        // it. Created here (empty is a valid database) so SQLite's -wal and -shm, which copy the
        // database file's permissions, are 0600 too; an existing file keeps the mode it has.
        closeSync(openSync(path, 'a', 0o600));
      }
      db = new Database(path);
      // WAL lets readers proceed while one writer commits; in-memory databases ignore it.
      if (!memory) db.pragma('journal_mode = WAL');
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
      db.pragma('foreign_keys = ON');
      // NORMAL is durable across application crashes in WAL mode and avoids an fsync per commit.
      if (!memory) db.pragma('synchronous = NORMAL');
      migrate(db);
      this.db = db;
      this.s = prepareStatements(db);
      this.idempotency = new SqliteIdempotency(db);
      this.oauth1 = new SqliteOAuth1(db, (what, fn) => this.run(what, fn));
      this.oauth2 = new SqliteOAuth2(db, (what, fn) => this.run(what, fn));
      this.nonces = opts.nonceLog === true ? new SqliteNonceLog(db, nonceMemoryLimit) : new SqliteNonceTable(db);
      const dataVersion = db.prepare('PRAGMA data_version').pluck();
      this.tokenRows = new TokenRowCache(() => dataVersion.get() as number);
    } catch (err) {
      db?.close();
      const reason = err instanceof Error ? err.message : String(err);
      throw storeUnavailable(`cannot open SQLite database at ${path}: ${reason}`, err);
    }
  }

  async getArticleById(id: number): Promise<Article | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const row = this.run('read article', () => this.s.articleById.get(id) as ArticleRow | undefined);
    return row === undefined ? undefined : toArticle(row);
  }

  async getArticleBySlug(slug: string): Promise<Article | undefined> {
    const row = this.run('read article', () => this.s.articleBySlug.get(slug) as ArticleRow | undefined);
    return row === undefined ? undefined : toArticle(row);
  }

  async listArticles(opts: { limit: number; afterId?: number }): Promise<Article[]> {
    const limit = Math.max(0, Math.floor(opts.limit));
    const after = opts.afterId ?? 0;
    const rows = this.run('list articles', () => this.s.listArticles.all(after, limit) as ArticleRow[]);
    return rows.map(toArticle);
  }

  async createArticle(input: ArticleInput, owner: string): Promise<Article> {
    return this.run('create article', () => this.insertArticle(null, input, owner));
  }

  async putArticleBySlug(slug: string, input: ArticleInput, owner: string, cond?: WriteCondition): Promise<WriteResult> {
    return this.run('put article', () => this.s.tx((): WriteResult => {
      const row = this.s.articleBySlug.get(slug) as ArticleRow | undefined;
      if (row === undefined) {
        if (!conditionHolds(undefined, cond)) return { status: 'precondition-failed' };
        return { status: 'created', article: this.insertArticle(slug, input, owner) };
      }
      return this.replaceRow(row, input, cond);
    }).immediate());
  }

  async replaceArticle(id: number, input: ArticleInput, cond?: WriteCondition): Promise<WriteResult> {
    if (!Number.isSafeInteger(id)) return { status: 'missing' };
    return this.run('replace article', () => this.s.tx((): WriteResult => {
      const row = this.s.articleById.get(id) as ArticleRow | undefined;
      // RFC 9110 §13.2.1: preconditions are ignored when the answer would be 404 anyway.
      if (row === undefined) return { status: 'missing' };
      return this.replaceRow(row, input, cond);
    }).immediate());
  }

  async deleteArticle(id: number, cond?: WriteCondition): Promise<'deleted' | 'missing' | 'precondition-failed'> {
    if (!Number.isSafeInteger(id)) return 'missing';
    return this.run('delete article', () => this.s.tx(() => {
      const row = this.s.articleById.get(id) as ArticleRow | undefined;
      if (row === undefined) return 'missing' as const;
      if (!conditionHolds(row.etag, cond)) return 'precondition-failed' as const;
      this.s.deleteArticle.run(id);
      return 'deleted' as const;
    }).immediate());
  }

  async createUser(u: { name: string; role: Role; passwordHash: string; hmacSecret?: string | null }): Promise<User> {
    const now = Date.now();
    const info = this.run('create user', () => this.s.insertUser.run(u.name, u.role, u.passwordHash, u.hmacSecret ?? null, now));
    if (info.changes === 0) throw userExists(u.name);
    return { name: u.name, role: u.role, passwordHash: u.passwordHash, hmacSecret: u.hmacSecret ?? null, createdAt: new Date(now) };
  }

  async getUser(name: string): Promise<User | undefined> {
    const row = this.run('read user', () => this.s.userByName.get(name) as UserRow | undefined);
    return row === undefined ? undefined : toUser(row);
  }

  async listUsers(): Promise<User[]> {
    return this.run('list users', () => this.s.listUsers.all() as UserRow[]).map(toUser);
  }

  async removeUser(name: string): Promise<boolean> {
    // Clients go by ON DELETE CASCADE; tokens carry no foreign key, so they go explicitly.
    noteTokenWrite();
    return this.run('remove user', () => this.s.tx(() => {
      this.s.deleteTokensOfUser.run(name, name);
      return this.s.deleteUser.run(name).changes > 0;
    }).immediate());
  }

  async setUserHmacSecret(name: string, secret: string | null): Promise<boolean> {
    return this.run('update user', () => this.s.setHmacSecret.run(secret, name).changes > 0);
  }

  async setUserPassword(name: string, passwordHash: string): Promise<boolean> {
    return this.run('update user', () => this.s.setPasswordHash.run(passwordHash, name).changes > 0);
  }

  async setUserRole(name: string, role: Role): Promise<boolean> {
    return this.run('update user', () => this.s.setRole.run(role, name).changes > 0);
  }

  async createClient(c: { clientId: string; secretHash: string; userName: string; scopes: string[] }): Promise<OAuthClient> {
    const now = Date.now();
    this.run('create client', () => this.s.tx(() => {
      if (this.s.userByName.get(c.userName) === undefined) throw userNotFound(c.userName);
      const info = this.s.insertClient.run(c.clientId, c.secretHash, c.userName, joinScopes(c.scopes), now);
      if (info.changes === 0) throw clientExists(c.clientId);
    }).immediate());
    return { clientId: c.clientId, secretHash: c.secretHash, userName: c.userName, scopes: [...c.scopes], createdAt: new Date(now) };
  }

  async getClient(clientId: string): Promise<OAuthClient | undefined> {
    const row = this.run('read client', () => this.s.clientById.get(clientId) as ClientRow | undefined);
    return row === undefined ? undefined : toClient(row);
  }

  async listClients(): Promise<OAuthClient[]> {
    return this.run('list clients', () => this.s.listClients.all() as ClientRow[]).map(toClient);
  }

  async removeClient(clientId: string): Promise<boolean> {
    noteTokenWrite();
    return this.run('remove client', () => this.s.tx(() => {
      this.s.deleteTokensOfClient.run(clientId);
      return this.s.deleteClient.run(clientId).changes > 0;
    }).immediate());
  }

  async saveToken(t: NewToken): Promise<void> {
    this.run('save token', () => this.insertToken(t));
  }

  private insertToken(t: NewToken): void {
    noteTokenWrite();
    this.s.insertToken.run(t.hash, t.kind, t.clientId, t.userName, joinScopes(t.scopes), t.familyId, t.expiresAt.getTime());
  }

  async getToken(hash: string): Promise<TokenRecord | undefined> {
    return this.getTokenNow(hash);
  }

  private readonly readTokenRow = (hash: string): TokenRow | undefined => this.s.tokenByHash.get(hash) as TokenRow | undefined;

  getTokenNow(hash: string): TokenRecord | undefined {
    // The cache's data_version read is a statement too: a closed or broken database fails like the read.
    const row = this.run('read token', () => this.tokenRows.get(hash, this.readTokenRow));
    // A fresh record each time: callers own what they are handed.
    return row === undefined ? undefined : toToken(row);
  }

  async rotateRefreshToken(hash: string, successors: readonly NewToken[]): Promise<'ok' | 'reused' | 'missing'> {
    // One write transaction (writers queue on the database lock, across processes too), so a rotation
    // and a reuse of the same family cannot interleave and leave the successors outliving the revocation.
    noteTokenWrite();
    return this.run('rotate token', () => this.s.tx(() => {
      if (this.s.markRefreshUsed.run(Date.now(), hash).changes > 0) {
        for (const t of successors) this.insertToken(t);
        return 'ok' as const;
      }
      const row = this.s.refreshFamily.get(hash) as { family_id: string } | undefined;
      if (row === undefined) return 'missing' as const;
      // Already used, or revoked: either way a replay (RFC 9700 §4.14.2).
      this.s.revokeFamily.run(row.family_id);
      return 'reused' as const;
    }).immediate());
  }

  async revokeToken(hash: string): Promise<boolean> {
    noteTokenWrite();
    return this.run('revoke token', () => this.s.revokeToken.run(hash).changes > 0);
  }

  async revokeFamily(familyId: string): Promise<number> {
    noteTokenWrite();
    return this.run('revoke tokens', () => this.s.revokeFamily.run(familyId).changes);
  }

  async revokeUserTokens(userName: string): Promise<number> {
    noteTokenWrite();
    return this.run('revoke tokens', () => this.s.tx(() => this.s.revokeUserTokens.run(userName).changes + this.oauth1.revokeNow({ userName }) + this.oauth2.spendCodesNow(userName)).immediate());
  }

  /**
   * Group commit: nonces consumed during one turn of the event loop are decided and written in one
   * transaction at its end (setImmediate), since each commit costs a WAL append of its own. Each
   * nonce still gets its own answer, in arrival order, exact even when several processes share the
   * file (sqlite-nonce-table, sqlite-nonce-log), and each promise settles only after the commit.
   */
  consumeNonce(key: string, expiresAtMs: number): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      let batch = this.nonceBatch;
      if (batch === undefined) {
        batch = this.nonceBatch = [];
        setImmediate(() => this.flushNonces());
      }
      batch.push({ key, expiresAtMs, resolve, reject });
    });
  }

  private flushNonces(): void {
    const batch = this.nonceBatch;
    if (batch === undefined) return;
    this.nonceBatch = undefined;
    let fresh: boolean[];
    try {
      fresh = this.run('consume nonce', () => this.nonces.consume(batch));
    } catch (failure) {
      for (const n of batch) n.reject(failure);
      return;
    }
    for (let i = 0; i < batch.length; i++) batch[i]!.resolve(fresh[i]!);
  }

  async claimIdempotencyKey(claim: IdempotencyClaim): Promise<IdempotencyClaimResult> {
    return this.run('claim idempotency key', () => this.idempotency.claimKey(claim));
  }

  async completeIdempotencyKey(ref: IdempotencyKeyRef, response: IdempotentResponse): Promise<boolean> {
    return this.run('store idempotent response', () => this.idempotency.completeKey(ref, response));
  }

  async releaseIdempotencyKey(ref: IdempotencyKeyRef): Promise<boolean> {
    return this.run('release idempotency key', () => this.idempotency.releaseKey(ref));
  }

  async sweepIdempotencyKeys(nowMs: number, limit: number): Promise<number> {
    return this.run('sweep idempotency keys', () => this.idempotency.sweepKeys(nowMs, limit));
  }

  /**
   * Moves WAL checkpoints to a worker thread (a long-running service calls this; short CLI runs
   * keep SQLite's default). A no-op for in-memory databases and when already running.
   */
  startBackgroundCheckpoints(): void {
    if (this.checkpointer !== undefined || this.path === ':memory:' || this.path === '' || !this.db.open) return;
    const worker = new Worker(CHECKPOINT_WORKER, {
      eval: true,
      workerData: { driver: requireHere.resolve('better-sqlite3'), path: this.path, intervalMs: CHECKPOINT_INTERVAL_MS },
    });
    worker.unref();
    // A worker that cannot start or dies leaves the raised automatic checkpoint in charge.
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      if (this.checkpointer === worker) this.checkpointer = undefined;
    });
    this.checkpointer = worker;
    this.db.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
  }

  /** True while a checkpoint worker runs (for tests and diagnostics). */
  get checkpointsInBackground(): boolean {
    return this.checkpointer !== undefined;
  }

  async ping(): Promise<void> {
    try {
      this.db.prepare('SELECT 1').get();
    } catch (err) {
      throw storeUnavailable(`SQLite database unusable (ping): ${err instanceof Error ? err.message : String(err)}`, err);
    }
  }

  async close(): Promise<void> {
    // Nonces waiting for their commit are written (or failed) before the file closes.
    this.flushNonces();
    const worker = this.checkpointer;
    if (worker !== undefined) {
      this.checkpointer = undefined;
      // Referenced again while it stops, so the process waits for it rather than exiting mid-close.
      worker.ref();
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 1000)))]);
      clearTimeout(timer);
      if (worker.threadId !== -1) await worker.terminate();
    }
    // Closing the last connection checkpoints what is left in the WAL.
    if (this.db.open) this.db.close();
    // Nothing is answered from memory once closed: token reads fail as every other read does.
    this.tokenRows.reset();
  }

  private insertArticle(slug: string | null, input: ArticleInput, owner: string): Article {
    const now = Date.now();
    const etag = contentEtag(input);
    const info = this.s.insertArticle.run(slug, input.title, input.price.amount, input.price.currency, owner, etag, now, now);
    return {
      id: Number(info.lastInsertRowid), slug, title: input.title, price: { amount: input.price.amount, currency: input.price.currency },
      owner, etag, createdAt: new Date(now), updatedAt: new Date(now),
    };
  }

  /** Body of a replace; runs inside the caller's transaction with `row` just read. */
  private replaceRow(row: ArticleRow, input: ArticleInput, cond: WriteCondition | undefined): WriteResult {
    const current = toArticle(row);
    if (!conditionHolds(row.etag, cond)) return { status: 'precondition-failed', current };
    const etag = contentEtag(input);
    if (etag === row.etag) return { status: 'replaced', article: current, changed: false };
    const now = Date.now();
    this.s.updateArticle.run(input.title, input.price.amount, input.price.currency, etag, now, row.id);
    return {
      status: 'replaced', changed: true,
      article: { ...current, title: input.title, price: { amount: input.price.amount, currency: input.price.currency }, etag, updatedAt: new Date(now) },
    };
  }

  private run<T>(what: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw mapError(err, what);
    }
  }
}

/**
 * Creates the missing directories above `path` one level at a time. Node's `mkdirSync(..., { recursive: true })`
 * can spin forever on pseudo filesystems such as /proc, which would hang the CLI instead of reporting the path.
 */
function makeParentDirs(path: string): void {
  const missing: string[] = [];
  for (let dir = dirname(resolve(path)); !existsSync(dir); dir = dirname(dir)) {
    if (dirname(dir) === dir) break;
    missing.unshift(dir);
  }
  for (const dir of missing) mkdirSync(dir, { mode: 0o700 });
}

/** Applies pending migrations under an IMMEDIATE transaction, which serialises processes opening one file. */
function migrate(db: Db): void {
  db.transaction(() => {
    db.exec(migrationsTableSql(SQLITE_DIALECT));
    const applied = (db.prepare('SELECT id FROM roa_migrations').all() as { id: number }[]).map((r) => r.id);
    const record = db.prepare('INSERT INTO roa_migrations (id, name, applied_at) VALUES (?, ?, ?)');
    for (const m of pendingMigrations(applied)) {
      for (const sql of m.up(SQLITE_DIALECT)) db.exec(sql);
      record.run(m.id, m.name, Date.now());
    }
  }).immediate();
}

