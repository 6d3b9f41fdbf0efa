/**
 * @module auth/user-cache
 * A short-lived read-through cache of user (and client) records for the authentication schemes.
 * Every scheme reads the caller's record on every request; keeping it for a second removes a
 * database round trip from the hot path, while a password, secret or role change — or a removed
 * user — takes effect within that second on every instance.
 */
import type { OAuthClient, Store, User } from '../storage/store.js';
import { BoundedMap } from '../util/bounded-map.js';

/** How long a record read from the store is reused. */
export const RECORD_TTL_MS = 1000;
const LIMIT = 10_000;

interface Entry<T> {
  at: number;
  value: Promise<T | undefined>;
  /** Set once `value` fulfilled, so a hot caller can skip awaiting it. */
  settled: boolean;
  result: T | undefined;
}

/** What `peekUser` answers when only `getUser` can tell. */
export const NOT_LOADED: unique symbol = Symbol('roa.notLoaded');

export class RecordCache {
  private readonly users = new BoundedMap<string, Entry<User>>(LIMIT);
  private readonly clients = new BoundedMap<string, Entry<OAuthClient>>(LIMIT);

  constructor(
    private readonly store: Pick<Store, 'getUser'> & Partial<Pick<Store, 'getClient'>>,
    private readonly ttlMs = RECORD_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  getUser(name: string): Promise<User | undefined> {
    return this.read(this.users, name, () => this.store.getUser(name));
  }

  /**
   * The user record if it is cached, fresh and already loaded, without a promise (an await per
   * request is measurable on the authentication hot path); undefined for a user known not to
   * exist; NOT_LOADED when only `getUser` can tell.
   */
  peekUser(name: string): User | undefined | typeof NOT_LOADED {
    return this.peek(this.users, name);
  }

  /** `peekUser` for clients. */
  peekClient(clientId: string): OAuthClient | undefined | typeof NOT_LOADED {
    return this.peek(this.clients, clientId);
  }

  getClient(clientId: string): Promise<OAuthClient | undefined> {
    return this.read(this.clients, clientId, () => this.store.getClient!(clientId));
  }

  /** Forgets everything (e.g. after this process changed users or clients). */
  clear(): void {
    this.users.clear();
    this.clients.clear();
  }

  private peek<T>(map: Map<string, Entry<T>>, key: string): T | undefined | typeof NOT_LOADED {
    if (this.ttlMs <= 0) return NOT_LOADED;
    const hit = map.get(key);
    return hit !== undefined && hit.settled && this.now() - hit.at < this.ttlMs ? hit.result : NOT_LOADED;
  }

  private read<T>(map: Map<string, Entry<T>>, key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    if (this.ttlMs <= 0) return load();
    const now = this.now();
    const hit = map.get(key);
    if (hit !== undefined && now - hit.at < this.ttlMs) return hit.value;
    const value = load();
    const entry: Entry<T> = { at: now, value, settled: false, result: undefined };
    map.set(key, entry);
    value.then(
      (result) => {
        entry.result = result;
        entry.settled = true;
      },
      // A failed read (store down) is not remembered: the next request asks again.
      () => {
        if (map.get(key) === entry) map.delete(key);
      },
    );
    return value;
  }
}
