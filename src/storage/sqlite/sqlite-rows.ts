/** @module storage/sqlite/sqlite-rows Row shapes of the SQLite tables and their mapping to Store types (dates as ms epoch). */
import { splitScopes } from '../conditions.js';
import type { Article, OAuthClient, Role, TokenRecord, User } from '../store.js';

export interface ArticleRow {
  id: number; slug: string | null; title: string; amount: string; currency: string;
  owner: string; etag: string; created_at: number; updated_at: number;
}
export interface UserRow { name: string; role: Role; password_hash: string; hmac_secret: string | null; created_at: number }
export interface ClientRow { client_id: string; secret_hash: string; user_name: string; scopes: string; created_at: number }
export interface TokenRow {
  hash: string; kind: 'access' | 'refresh'; client_id: string; user_name: string; scopes: string;
  family_id: string; expires_at: number; used_at: number | null; revoked: number;
}

export const ARTICLE_COLUMNS = 'id, slug, title, amount, currency, owner, etag, created_at, updated_at';

export function toArticle(r: ArticleRow): Article {
  return {
    id: r.id, slug: r.slug, title: r.title, price: { amount: r.amount, currency: r.currency },
    owner: r.owner, etag: r.etag, createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at),
  };
}
export function toUser(r: UserRow): User {
  return { name: r.name, role: r.role, passwordHash: r.password_hash, hmacSecret: r.hmac_secret, createdAt: new Date(r.created_at) };
}
export function toClient(r: ClientRow): OAuthClient {
  return { clientId: r.client_id, secretHash: r.secret_hash, userName: r.user_name, scopes: splitScopes(r.scopes), createdAt: new Date(r.created_at) };
}
export function toToken(r: TokenRow): TokenRecord {
  return {
    hash: r.hash, kind: r.kind, clientId: r.client_id, userName: r.user_name, scopes: splitScopes(r.scopes),
    familyId: r.family_id, expiresAt: new Date(r.expires_at), usedAt: r.used_at === null ? null : new Date(r.used_at),
    revoked: r.revoked !== 0,
  };
}
