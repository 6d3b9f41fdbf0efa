/** @module storage/postgres/postgres-rows Row shapes of the PostgreSQL tables and their mapping to Store types. */
import { splitScopes } from '../conditions.js';
import type { Article, OAuthClient, Role, TokenRecord, User } from '../store.js';

export interface ArticleRow {
  id: string; slug: string | null; title: string; amount: string; currency: string;
  owner: string; etag: string; created_at: Date; updated_at: Date;
}
export interface UserRow { name: string; role: Role; password_hash: string; hmac_secret: string | null; created_at: Date }
export interface ClientRow { client_id: string; secret_hash: string; user_name: string; scopes: string; created_at: Date }
export interface TokenRow {
  hash: string; kind: 'access' | 'refresh'; client_id: string; user_name: string; scopes: string;
  family_id: string; expires_at: Date; used_at: Date | null; revoked: boolean;
}

export const ARTICLE_COLUMNS = 'id, slug, title, amount, currency, owner, etag, created_at, updated_at';
export const USER_COLUMNS = 'name, role, password_hash, hmac_secret, created_at';
export const CLIENT_COLUMNS = 'client_id, secret_hash, user_name, scopes, created_at';
export const TOKEN_COLUMNS = 'hash, kind, client_id, user_name, scopes, family_id, expires_at, used_at, revoked';

export function toArticle(r: ArticleRow): Article {
  return {
    // BIGINT arrives as text; ids stay far below 2^53.
    id: Number(r.id), slug: r.slug, title: r.title, price: { amount: r.amount, currency: r.currency },
    owner: r.owner, etag: r.etag, createdAt: r.created_at, updatedAt: r.updated_at,
  };
}
export function toUser(r: UserRow): User {
  return { name: r.name, role: r.role, passwordHash: r.password_hash, hmacSecret: r.hmac_secret, createdAt: r.created_at };
}
export function toClient(r: ClientRow): OAuthClient {
  return { clientId: r.client_id, secretHash: r.secret_hash, userName: r.user_name, scopes: splitScopes(r.scopes), createdAt: r.created_at };
}
export function toToken(r: TokenRow): TokenRecord {
  return {
    hash: r.hash, kind: r.kind, clientId: r.client_id, userName: r.user_name, scopes: splitScopes(r.scopes),
    familyId: r.family_id, expiresAt: r.expires_at, usedAt: r.used_at, revoked: r.revoked,
  };
}
