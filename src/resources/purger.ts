/** @module resources/purger — the origin side of caching: after a write it invalidates caches in this process by a call and sends PURGE (by URL and by xkey tag) to every cache node, coalescing concurrent writes into one batch per node and retrying failed nodes in the background. */
import { Pool } from 'undici';
import { MergedTarget, purgeRequests, type PurgeRequest } from './purge-requests.js';
import { sendPurge, type InFlight } from './purge-send.js';

/** What to invalidate after a write: request paths (`/article/7`) and surrogate keys (`article-7`). */
export interface PurgeTarget {
  urls: string[];
  /**
   * Every response at `urls` should carry one of these (an `xkey` response header): the delayed
   * second purge of a target with tags sends only them.
   */
  tags: string[];
}

/**
 * A cache in this process (the embedded gateway's `invalidate`): purged by a call rather than a PURGE
 * request, which a gateway serving only TLS, under a certificate for its public name, could not take
 * from loopback without the purger trusting that certificate for an address it does not name.
 */
export interface LocalCache {
  invalidate(target: PurgeTarget): number;
}

/** Minimal logger shape; pino's `Logger` satisfies it. */
export interface PurgerLogger {
  info(o: object, m?: string): void;
  warn(o: object, m?: string): void;
  error(o: object, m?: string): void;
}

export interface PurgerOptions {
  /** Base URLs of the cache nodes, e.g. `['http://127.0.0.1:8080']`. A path part is prefixed to every purged path. */
  nodes: string[];
  /** Caches in this process, invalidated by a call at each purge (and at the delayed purge). Default none. */
  localCaches?: LocalCache[];
  /** Read-your-writes bound: `purge()` resolves at the latest after this long. Default 2000. */
  timeoutMs?: number;
  /** A second purge of the same target after this delay (closes the race with a fill that was in flight). Default 1000; 0 = off. */
  delayedPurgeMs?: number;
  /** Background retries of failed nodes stop this long after the `purge()` call. Default 60000. */
  retryDeadlineMs?: number;
  /** First retry delay; doubles per attempt. Default 100. */
  retryBaseMs?: number;
  /** Upper bound of one retry delay. Default 10000. */
  retryMaxMs?: number;
  /** `Host` header sent with each PURGE, when the cache keys objects by the public host name. Default: the node's host. */
  host?: string;
  logger?: PurgerLogger;
}

/** Counters since construction. */
export interface PurgerStats {
  /** PURGE requests issued (first attempts, retries and delayed purges). */
  sent: number;
  /** Attempts that failed (network error, timeout, 5xx, unexpected status). */
  failed: number;
  /** Retry attempts issued in the background. */
  retried: number;
  /** Node/request pairs still waiting for a retry to succeed. */
  pending: number;
}

/** One node's counters since construction (`retried` counts retries and delayed second purges). */
export interface PurgerNodeStats {
  node: string;
  sent: number;
  failed: number;
  retried: number;
}

interface Job {
  node: number;
  path: string;
  headers: Record<string, string>;
  deadline: number;
  attempt: number;
  delayed: boolean;
}

type Outcome = 'ok' | 'retry' | 'fatal';

/** One caller of `purge()`, answered once every node's batch holding its target was acknowledged. */
interface Writer {
  left: number;
  done: () => void;
}

/** Targets collected for one node while its previous batch is in flight (or during this turn). */
interface Batch {
  target: MergedTarget;
  writers: Writer[];
}

interface NodeState {
  pool: Pool;
  prefix: string;
  name: string;
  /** The batch still taking targets. */
  collecting: Batch | undefined;
  /** A batch's first attempts are in flight: the next batch waits for them (and grows meanwhile). */
  sending: boolean;
  stats: PurgerNodeStats;
}

/** Delayed second purges of the writes of one window, sent together. */
interface DelayedBatch {
  target: MergedTarget;
  /** Writes after this instant start the next window. */
  closesAt: number;
  timer: NodeJS.Timeout;
}

const SILENT: PurgerLogger = { info() {}, warn() {}, error() {} };

/**
 * Invalidates gateway caches after writes.
 *
 * Writes whose purges start in the same event-loop turn, or while a batch to that node is still in
 * flight, share one batch per node: each URL once and every tag in one `xkey` header (split at
 * {@link MAX_XKEY_HEADER}). A writer is answered once the batch holding its target was acknowledged
 * by every node (or `timeoutMs` passed), so read-your-writes holds per write. The delayed second
 * purges of the writes of one window (a tenth of `delayedPurgeMs`) go out together, each at least
 * `delayedPurgeMs` after its write.
 *
 * @example
 * const purger = new Purger({ nodes: ['http://127.0.0.1:8080', 'http://127.0.0.1:8081'], logger });
 * await purger.purge({ urls: ['/article/7', '/articles'], tags: ['article-7'] });
 * await purger.drain(10_000);
 */
export class Purger {
  readonly #nodes: NodeState[];
  readonly #localCaches: LocalCache[];
  readonly #timeoutMs: number;
  readonly #delayedPurgeMs: number;
  readonly #delayWindowMs: number;
  readonly #retryDeadlineMs: number;
  readonly #retryBaseMs: number;
  readonly #retryMaxMs: number;
  readonly #host: string | undefined;
  readonly #log: PurgerLogger;
  /** Retry timers. */
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #inflight = new Map<Job, InFlight>();
  /** Delayed batches not yet sent, so `drain()` can send them at once. */
  readonly #delayed = new Set<DelayedBatch>();
  #openDelayed: DelayedBatch | undefined;
  /** Callers of `purge()` not yet answered. */
  readonly #waiting = new Set<Promise<void>>();
  /** Jobs waiting for (or running) a retry. */
  readonly #retrying = new Set<Job>();
  #idle: (() => void)[] = [];
  #flushScheduled = false;
  #draining = false;
  #closed = false;
  #stats: PurgerStats = { sent: 0, failed: 0, retried: 0, pending: 0 };

  constructor(opts: PurgerOptions) {
    if (!Array.isArray(opts.nodes)) throw new TypeError('Purger: nodes must be an array of base URLs');
    this.#timeoutMs = nonNegative('timeoutMs', opts.timeoutMs, 2000);
    this.#delayedPurgeMs = nonNegative('delayedPurgeMs', opts.delayedPurgeMs, 1000);
    this.#delayWindowMs = this.#delayedPurgeMs / 10;
    this.#retryDeadlineMs = nonNegative('retryDeadlineMs', opts.retryDeadlineMs, 60_000);
    this.#retryBaseMs = Math.max(1, nonNegative('retryBaseMs', opts.retryBaseMs, 100));
    this.#retryMaxMs = Math.max(this.#retryBaseMs, nonNegative('retryMaxMs', opts.retryMaxMs, 10_000));
    this.#host = opts.host;
    this.#log = opts.logger ?? SILENT;
    this.#localCaches = opts.localCaches ?? [];
    this.#nodes = opts.nodes.map((base) => {
      let url: URL;
      try {
        url = new URL(base);
      } catch {
        throw new TypeError(`Purger: invalid node URL ${JSON.stringify(base)}`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new TypeError(`Purger: node URL must be http(s): ${base}`);
      }
      const pool = new Pool(url.origin, {
        connections: 16,
        keepAliveTimeout: 30_000,
        headersTimeout: this.#timeoutMs || 1,
        bodyTimeout: this.#timeoutMs || 1,
      });
      const prefix = url.pathname.replace(/\/+$/, '');
      const name = url.origin + prefix;
      return { pool, prefix, name, collecting: undefined, sending: false, stats: { node: name, sent: 0, failed: 0, retried: 0 } };
    });
  }

  /**
   * Invalidates the caches in this process at once, then purges every URL, and the tags via
   * `xkey`, on every node. Resolves once every node acknowledged a batch holding this target or
   * `timeoutMs` passed; never rejects. Failed nodes are retried in the background, and a second
   * purge (of the tags alone when there are some) follows after `delayedPurgeMs`.
   */
  purge(target: PurgeTarget): Promise<void> {
    if (this.#closed || this.#draining) return Promise.resolve();
    this.#invalidateLocal(target);
    if (this.#delayedPurgeMs > 0) this.#delay(target);
    if (this.#nodes.length === 0) return Promise.resolve();
    const waiting = new Promise<void>((resolve) => {
      // Each attempt aborts itself after timeoutMs; this bounds the wait of a writer whose batch
      // queues behind one still in flight.
      const timer = setTimeout(resolve, this.#timeoutMs);
      const writer: Writer = {
        left: this.#nodes.length,
        done: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      for (const node of this.#nodes) {
        node.collecting ??= { target: new MergedTarget(), writers: [] };
        node.collecting.target.add(target);
        node.collecting.writers.push(writer);
      }
    });
    this.#waiting.add(waiting);
    void waiting.then(() => this.#waiting.delete(waiting));
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      // After the current turn's I/O callbacks, so the writes they finish share one batch.
      setImmediate(() => {
        this.#flushScheduled = false;
        for (const node of this.#nodes) this.#flush(node);
      });
    }
    return waiting;
  }

  stats(): PurgerStats {
    return { ...this.#stats };
  }

  /** Per-node counters, in the order of `nodes` (`retried` counts retries and delayed second purges). */
  nodeStats(): PurgerNodeStats[] {
    return this.#nodes.map((n) => ({ ...n.stats }));
  }

  /**
   * For a graceful shutdown: takes no new purges, waits for the purges callers wait on, sends the
   * delayed purges now and waits for pending retries, all within `timeoutMs`; then gives up what
   * remains (logged at warn, per node) and closes the pools. Never rejects.
   */
  async drain(timeoutMs: number): Promise<void> {
    if (this.#closed) return;
    this.#draining = true;
    const deadline = Date.now() + Math.max(0, timeoutMs);
    const within = (p: Promise<unknown>): Promise<void> => {
      const left = deadline - Date.now();
      if (left <= 0) return Promise.resolve();
      let timer: NodeJS.Timeout | undefined;
      return Promise.race([p.then(() => {}), new Promise<void>((r) => { timer = setTimeout(r, left); })]).finally(() => clearTimeout(timer));
    };
    await within(Promise.all([...this.#waiting]));
    const rounds: Promise<void>[] = [];
    for (const batch of [...this.#delayed]) {
      clearTimeout(batch.timer);
      rounds.push(this.#sendDelayed(batch));
    }
    await within(Promise.all(rounds));
    if (this.#retrying.size > 0) await within(new Promise<void>((r) => this.#idle.push(r)));
    const abandoned = new Map<string, number>();
    const count = (job: Job): void => {
      const name = this.#nodes[job.node]!.name;
      abandoned.set(name, (abandoned.get(name) ?? 0) + 1);
    };
    for (const job of this.#retrying) count(job);
    for (const job of this.#inflight.keys()) if (!this.#retrying.has(job)) count(job);
    for (const node of this.#nodes) {
      if (node.collecting === undefined) continue;
      const n = purgeRequests(node.collecting.target.urls, node.collecting.target.tags, () => {}).length;
      abandoned.set(node.name, (abandoned.get(node.name) ?? 0) + n);
    }
    for (const [node, n] of abandoned) {
      this.#log.warn({ node, abandoned: n }, 'purger: shutting down, giving up purges not yet acknowledged; the node may serve stale content until TTL expiry');
    }
    await this.close();
  }

  /** Cancels delayed purges and retries, aborts requests in flight and closes the pools. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    for (const batch of this.#delayed) clearTimeout(batch.timer);
    this.#delayed.clear();
    this.#openDelayed = undefined;
    for (const node of this.#nodes) {
      for (const w of node.collecting?.writers ?? []) w.done();
      node.collecting = undefined;
    }
    for (const f of this.#inflight.values()) f.abort(new Error('purger closed'));
    this.#retrying.clear();
    this.#stats.pending = 0;
    this.#wakeIdle();
    await Promise.all(this.#nodes.map((n) => n.pool.destroy().catch(() => {})));
  }

  #invalidateLocal(target: PurgeTarget): void {
    for (const cache of this.#localCaches) {
      try {
        cache.invalidate(target);
      } catch (err) {
        this.#log.error({ err: errorMessage(err) }, 'purger: invalidating a cache in this process failed');
      }
    }
  }

  /** Sends the node's collected batch unless one is in flight; the writers are answered when it was acknowledged. */
  #flush(node: NodeState): void {
    const batch = node.collecting;
    if (batch === undefined || node.sending || this.#closed) return;
    node.collecting = undefined;
    node.sending = true;
    const index = this.#nodes.indexOf(node);
    void this.#send(index, batch.target, false).then(() => {
      node.sending = false;
      for (const w of batch.writers) if (--w.left === 0) w.done();
      this.#flush(node);
    });
  }

  /** First attempts of every request for `target` to one node; resolves when all settled. Failures go to retry. */
  #send(node: number, target: MergedTarget, delayed: boolean): Promise<void> {
    const requests = this.#requests(target);
    if (requests.length === 0) return Promise.resolve();
    const deadline = Date.now() + this.#retryDeadlineMs;
    return Promise.all(requests.map((r) => {
      const job: Job = { node, path: r.path, headers: r.headers, deadline, attempt: 0, delayed };
      return this.#attempt(job).then((outcome) => {
        if (outcome === 'retry') this.#scheduleRetry(job, false);
      });
    })).then(() => {});
  }

  #requests(target: MergedTarget): PurgeRequest[] {
    return purgeRequests(target.urls, target.tags, (what, value) => {
      if (what === 'url') this.#log.error({ url: value }, 'purger: ignoring URL that is not an absolute path');
      else this.#log.error({ tag: value }, 'purger: ignoring tag that is empty or contains whitespace/comma');
    });
  }

  /** Adds `target` to the open delayed window, opening one (and its one timer) when needed. */
  #delay(target: PurgeTarget): void {
    const now = Date.now();
    let batch = this.#openDelayed;
    if (batch === undefined || now > batch.closesAt) {
      const created: DelayedBatch = {
        target: new MergedTarget(),
        closesAt: now + this.#delayWindowMs,
        // Fires a full delay after the window closes, so no write's second purge comes early.
        timer: setTimeout(() => void this.#sendDelayed(created), this.#delayWindowMs + this.#delayedPurgeMs),
      };
      batch = created;
      this.#openDelayed = batch;
      this.#delayed.add(batch);
    }
    // By the delayed purge, a fill that was in flight during the write is stored and indexed by
    // its tags, so the tags reach it; URL PURGEs are what waits for a fill still in flight, which
    // only the first round needs.
    batch.target.add(target.tags.length > 0 ? { urls: [], tags: target.tags } : target);
  }

  #sendDelayed(batch: DelayedBatch): Promise<void> {
    if (!this.#delayed.delete(batch) || this.#closed) return Promise.resolve();
    if (this.#openDelayed === batch) this.#openDelayed = undefined;
    if (this.#localCaches.length > 0) this.#invalidateLocal(batch.target.toTarget());
    return Promise.all(this.#nodes.map((_, i) => this.#send(i, batch.target, true))).then(() => {});
  }

  async #attempt(job: Job): Promise<Outcome> {
    if (this.#closed) return 'fatal';
    const node = this.#nodes[job.node]!;
    this.#stats.sent++;
    node.stats.sent++;
    if (job.attempt > 0 || job.delayed) node.stats.retried++;
    const headers: Record<string, string> = this.#host === undefined ? job.headers : { ...job.headers, host: this.#host };
    try {
      const status = await sendPurge(node.pool, node.prefix + job.path, headers, this.#timeoutMs, (f) => {
        if (f === undefined) this.#inflight.delete(job);
        else this.#inflight.set(job, f);
      });
      // 404 means the node held nothing for that URL/tag: the goal (no stale copy) is met.
      if (status === 200 || status === 204 || status === 404) return 'ok';
      this.#stats.failed++;
      node.stats.failed++;
      if (status >= 500) {
        this.#log.warn({ ...this.#context(job), status }, 'purger: cache node answered 5xx, will retry');
        return 'retry';
      }
      // 403 (not in the purgers ACL) or 405 (PURGE not configured) will not heal by retrying.
      this.#log.error({ ...this.#context(job), status }, 'purger: cache node refused PURGE, not retrying');
      return 'fatal';
    } catch (err) {
      if (this.#closed) return 'fatal';
      this.#stats.failed++;
      node.stats.failed++;
      this.#log.warn({ ...this.#context(job), err: errorMessage(err) }, 'purger: cache node unreachable, will retry');
      return 'retry';
    }
  }

  #context(job: Job): object {
    return { node: this.#nodes[job.node]!.name, path: job.path, xkey: job.headers.xkey, attempt: job.attempt, delayed: job.delayed };
  }

  #scheduleRetry(job: Job, alreadyPending: boolean): void {
    if (this.#closed) return;
    job.attempt++;
    // Exponential backoff with jitter, so nodes coming back are not hit by every writer at once.
    const base = Math.min(this.#retryMaxMs, this.#retryBaseMs * 2 ** (job.attempt - 1));
    const delay = Math.round(base * (0.75 + Math.random() * 0.25));
    if (Date.now() + delay > job.deadline) {
      if (alreadyPending) this.#stats.pending--;
      this.#settled(job);
      this.#log.error(
        { node: this.#nodes[job.node]!.name, path: job.path, xkey: job.headers.xkey, attempts: job.attempt },
        'purger: giving up, retry deadline reached; the node may serve stale content until TTL expiry',
      );
      return;
    }
    if (!alreadyPending) this.#stats.pending++;
    this.#retrying.add(job);
    const t = setTimeout(() => {
      this.#timers.delete(t);
      this.#stats.retried++;
      void this.#attempt(job).then((outcome) => {
        if (this.#closed) return;
        if (outcome === 'retry') return this.#scheduleRetry(job, true);
        this.#stats.pending--;
        this.#settled(job);
        if (outcome === 'ok') {
          this.#log.info({ node: this.#nodes[job.node]!.name, path: job.path, attempts: job.attempt + 1 }, 'purger: retry succeeded');
        }
      });
    }, delay);
    this.#timers.add(t);
  }

  #settled(job: Job): void {
    this.#retrying.delete(job);
    if (this.#retrying.size === 0) this.#wakeIdle();
  }

  #wakeIdle(): void {
    const waiters = this.#idle;
    this.#idle = [];
    for (const w of waiters) w();
  }
}

function nonNegative(name: string, value: number | undefined, dflt: number): number {
  if (value === undefined) return dflt;
  if (!Number.isFinite(value) || value < 0) throw new TypeError(`Purger: ${name} must be a non-negative number`);
  return value;
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
