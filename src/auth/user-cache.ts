/**
 * @module auth/user-cache
 * A short-lived read-through cache of user (and client) records for the authentication schemes.
 * Every scheme reads the caller's record on every request; keeping it for a second removes a
 * database round trip from the hot path, while a password, secret or role change — or a removed
 * user — takes effect within that second on every instance.
 */
import type { OAuthClient, Store, User } from '../storage/store.js';

/** How long a record read from the store is reused. */
export const RECORD_TTL_MS = 1000;
const LIMIT = 10_000;

interface Entry<T> {
  at: number;
  value: Promise<T | undefined>;
}

export class RecordCache {
  private readonly users = new Map<string, Entry<User>>();
  private readonly clients = new Map<string, Entry<OAuthClient>>();

  constructor(
    private readonly store: Pick<Store, 'getUser'> & Partial<Pick<Store, 'getClient'>>,
    private readonly ttlMs = RECORD_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  getUser(name: string): Promise<User | undefined> {
    return this.read(this.users, name, () => this.store.getUser(name));
  }

  getClient(clientId: string): Promise<OAuthClient | undefined> {
    return this.read(this.clients, clientId, () => this.store.getClient!(clientId));
  }

  /** Forgets everything (e.g. after this process changed users or clients). */
  clear(): void {
    this.users.clear();
    this.clients.clear();
  }

  private read<T>(map: Map<string, Entry<T>>, key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    if (this.ttlMs <= 0) return load();
    const now = this.now();
    const hit = map.get(key);
    if (hit !== undefined && now - hit.at < this.ttlMs) return hit.value;
    const value = load();
    if (map.size >= LIMIT) map.clear();
    map.set(key, { at: now, value });
    // A failed read (store down) is not remembered: the next request asks again.
    value.catch(() => {
      if (map.get(key)?.value === value) map.delete(key);
    });
    return value;
  }
}
