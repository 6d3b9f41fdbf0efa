/**
 * @module storage/sqlite/token-row-cache
 * Token rows the SQLite store has read (OAuth 2 `oauth_tokens`, OAuth 1 `oauth1_token_credentials`),
 * reused while the database has not changed since.
 *
 * Why: every request with an opaque bearer token or an OAuth 1 access token reads its row, and that
 * read costs more than the rest of the bearer check together (bench/RESULTS.md). A row can only
 * change through a commit, so the cache is dropped whenever one may have happened:
 * - a token write through any SqliteStore of this process (`noteTokenWrite`, called before the write,
 *   for either table: one counter empties every cache);
 * - a commit by another connection or process, which moves `PRAGMA data_version`. That pragma is read
 *   again at the first lookup of each event-loop turn and of each millisecond, so a revocation made
 *   elsewhere is seen by every request this process reads after the revocation's commit; what a
 *   cached row can miss is a commit that lands while one turn is still running (under a millisecond).
 * Revocation stays instant: no time-based trust, as JWT mode has.
 */
import { BoundedMap } from '../../util/bounded-map.js';
import type { TokenRow } from './sqlite-rows.js';

/** Bounds the memory: past this many rows the oldest is forgotten first. */
const MAX_ROWS = 10_000;

/** Token writes made by every SqliteStore of this process; another store's write empties this one's cache too. */
let processTokenWrites = 0;

/**
 * Call before any statement that inserts, updates or deletes oauth_tokens or oauth1_token_credentials
 * rows, including by ON DELETE CASCADE (a removed user, client or OAuth 1 consumer).
 */
export function noteTokenWrite(): void {
  processTokenWrites++;
}

/** `Row`: the row type of the table cached (OAuth 2's by default). */
export class TokenRowCache<Row extends object = TokenRow> {
  private readonly rows = new BoundedMap<string, Row>(MAX_ROWS);
  /** data_version and process write count the rows were read under. */
  private version = -1;
  private writesSeen = -1;
  /** The millisecond of the last data_version read; -1 once the turn it was read in has ended. */
  private checkedAt = -1;
  private readonly endTurn = (): void => {
    this.checkedAt = -1;
  };

  /** `dataVersion` reads `PRAGMA data_version` on the store's connection. */
  constructor(private readonly dataVersion: () => number) {}

  /** The row for `hash`: the cached one when the database cannot have changed since, else `load()`'s (kept when found). */
  get(hash: string, load: (hash: string) => Row | undefined): Row | undefined {
    this.revalidate();
    const cached = this.rows.get(hash);
    if (cached !== undefined) return cached;
    const row = load(hash);
    if (row !== undefined) this.rows.set(hash, row);
    return row;
  }

  /** Forgets every row and reads data_version at the next lookup (the store closed, say). */
  reset(): void {
    this.rows.clear();
    this.checkedAt = -1;
  }

  private revalidate(): void {
    if (this.writesSeen !== processTokenWrites) {
      this.rows.clear();
      this.writesSeen = processTokenWrites;
    }
    const now = Date.now();
    if (this.checkedAt === now) return;
    if (this.checkedAt === -1) setImmediate(this.endTurn);
    this.checkedAt = now;
    const version = this.dataVersion();
    if (version !== this.version) {
      this.rows.clear();
      this.version = version;
    }
  }
}
