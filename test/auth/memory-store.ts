/**
 * @module test/auth/memory-store
 * A small in-memory double of the auth part of `Store` (users, clients, tokens, nonces) for auth unit tests.
 */
import type { NewToken, OAuthClient, Role, TokenRecord, User } from '../../src/storage/store.js';

export class MemoryAuthStore {
  readonly kind = 'sqlite' as const;
  users = new Map<string, User>();
  clients = new Map<string, OAuthClient>();
  tokens = new Map<string, TokenRecord>();
  nonces = new Map<string, number>();
  failNonces = false;
  calls: string[] = [];

  async createUser(u: { name: string; role: Role; passwordHash: string; hmacSecret?: string | null }): Promise<User> {
    const user = { name: u.name, role: u.role, passwordHash: u.passwordHash, hmacSecret: u.hmacSecret ?? null, createdAt: new Date() };
    this.users.set(u.name, user);
    return user;
  }
  async getUser(name: string): Promise<User | undefined> {
    this.calls.push('getUser');
    const u = this.users.get(name);
    return u && { ...u };
  }
  async setUserHmacSecret(name: string, secret: string | null): Promise<boolean> {
    return this.updateUser(name, { hmacSecret: secret });
  }
  async setUserPassword(name: string, passwordHash: string): Promise<boolean> {
    return this.updateUser(name, { passwordHash });
  }
  async setUserRole(name: string, role: Role): Promise<boolean> {
    return this.updateUser(name, { role });
  }
  private updateUser(name: string, change: Partial<User>): boolean {
    const u = this.users.get(name);
    if (!u) return false;
    Object.assign(u, change);
    return true;
  }
  async createClient(c: { clientId: string; secretHash: string; userName: string; scopes: string[] }): Promise<OAuthClient> {
    const client = { ...c, createdAt: new Date() };
    this.clients.set(c.clientId, client);
    return client;
  }
  async getClient(clientId: string): Promise<OAuthClient | undefined> {
    return this.clients.get(clientId);
  }
  async removeClient(clientId: string): Promise<boolean> {
    return this.clients.delete(clientId);
  }
  async saveToken(t: NewToken): Promise<void> {
    this.tokens.set(t.hash, { ...t, usedAt: null, revoked: false });
  }
  async getToken(hash: string): Promise<TokenRecord | undefined> {
    const t = this.tokens.get(hash);
    return t && { ...t };
  }
  async rotateRefreshToken(hash: string, successors: readonly NewToken[]): Promise<'ok' | 'reused' | 'missing'> {
    const t = this.tokens.get(hash);
    if (!t || t.kind !== 'refresh') return 'missing';
    if (t.usedAt || t.revoked) {
      await this.revokeFamily(t.familyId);
      return 'reused';
    }
    t.usedAt = new Date();
    for (const s of successors) await this.saveToken(s);
    return 'ok';
  }
  async revokeToken(hash: string): Promise<boolean> {
    const t = this.tokens.get(hash);
    if (!t || t.revoked) return false;
    t.revoked = true;
    return true;
  }
  async revokeUserTokens(userName: string): Promise<number> {
    return this.revokeWhere((t) => t.userName === userName);
  }
  async revokeFamily(familyId: string): Promise<number> {
    return this.revokeWhere((t) => t.familyId === familyId);
  }
  /** Revokes the live tokens `pick` selects; answers how many. */
  private revokeWhere(pick: (t: TokenRecord) => boolean): number {
    let n = 0;
    for (const t of this.tokens.values()) {
      if (pick(t) && !t.revoked) {
        t.revoked = true;
        n++;
      }
    }
    return n;
  }
  async consumeNonce(key: string, expiresAtMs: number): Promise<boolean> {
    if (this.failNonces) throw new Error('database down');
    const exp = this.nonces.get(key);
    if (exp !== undefined && exp > Date.now()) return false;
    this.nonces.set(key, expiresAtMs);
    return true;
  }
}
