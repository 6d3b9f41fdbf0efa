/** @module storage/sqlite/sqlite-statements Every SQL statement SqliteStore runs, prepared once per connection. */
import type { Database as Db, Statement as DriverStatement, Transaction } from 'better-sqlite3';

// Named here so the emitted declaration file can refer to the driver's types.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an interface, not an alias, so declarations name it instead of inlining the driver's type
export interface Statement extends DriverStatement {}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- better-sqlite3's own Transaction constraint, which this must match
export type Tx = <F extends (...args: any[]) => unknown>(fn: F) => Transaction<F>;
import { ARTICLE_COLUMNS } from './sqlite-rows.js';

/** The prepared statements by name, and `tx` for transactions. */
export type PreparedStatements = ReturnType<typeof prepareStatements>;

/** Every statement the store runs, prepared once per connection. */
export function prepareStatements(db: Db) {
  const st = (sql: string): Statement => db.prepare(sql);
  const statements = {
    tx: ((fn) => db.transaction(fn)) as Tx,
    articleById: st(`SELECT ${ARTICLE_COLUMNS} FROM articles WHERE id = ?`),
    articleBySlug: st(`SELECT ${ARTICLE_COLUMNS} FROM articles WHERE slug = ?`),
    listArticles: st(`SELECT ${ARTICLE_COLUMNS} FROM articles WHERE id > ? ORDER BY id LIMIT ?`),
    insertArticle: st(`INSERT INTO articles (slug, title, amount, currency, owner, etag, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    updateArticle: st('UPDATE articles SET title = ?, amount = ?, currency = ?, etag = ?, updated_at = ? WHERE id = ?'),
    deleteArticle: st('DELETE FROM articles WHERE id = ?'),
    insertUser: st(`INSERT INTO users (name, role, password_hash, hmac_secret, created_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (name) DO NOTHING`),
    userByName: st('SELECT name, role, password_hash, hmac_secret, created_at FROM users WHERE name = ?'),
    listUsers: st('SELECT name, role, password_hash, hmac_secret, created_at FROM users ORDER BY name'),
    deleteUser: st('DELETE FROM users WHERE name = ?'),
    setHmacSecret: st('UPDATE users SET hmac_secret = ? WHERE name = ?'),
    setPasswordHash: st('UPDATE users SET password_hash = ? WHERE name = ?'),
    setRole: st('UPDATE users SET role = ? WHERE name = ?'),
    insertClient: st(`INSERT INTO oauth_clients (client_id, secret_hash, user_name, scopes, created_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (client_id) DO NOTHING`),
    clientById: st('SELECT client_id, secret_hash, user_name, scopes, created_at FROM oauth_clients WHERE client_id = ?'),
    listClients: st('SELECT client_id, secret_hash, user_name, scopes, created_at FROM oauth_clients ORDER BY client_id'),
    deleteClient: st('DELETE FROM oauth_clients WHERE client_id = ?'),
    deleteTokensOfClient: st('DELETE FROM oauth_tokens WHERE client_id = ?'),
    deleteTokensOfUser: st(`DELETE FROM oauth_tokens WHERE user_name = ?
      OR client_id IN (SELECT client_id FROM oauth_clients WHERE user_name = ?)`),
    insertToken: st(`INSERT INTO oauth_tokens (hash, kind, client_id, user_name, scopes, family_id, expires_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`),
    tokenByHash: st(`SELECT hash, kind, client_id, user_name, scopes, family_id, expires_at, used_at, revoked
      FROM oauth_tokens WHERE hash = ?`),
    markRefreshUsed: st(`UPDATE oauth_tokens SET used_at = ?
      WHERE hash = ? AND kind = 'refresh' AND used_at IS NULL AND revoked = 0`),
    refreshFamily: st(`SELECT family_id FROM oauth_tokens WHERE hash = ? AND kind = 'refresh'`),
    revokeToken: st('UPDATE oauth_tokens SET revoked = 1 WHERE hash = ?'),
    revokeFamily: st('UPDATE oauth_tokens SET revoked = 1 WHERE family_id = ? AND revoked = 0'),
    revokeUserTokens: st('UPDATE oauth_tokens SET revoked = 1 WHERE user_name = ? AND revoked = 0'),
  };
  return statements;
}
