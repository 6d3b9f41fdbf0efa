/** @module resources/purger — the origin side of caching: after a write it fans PURGE (by URL and by xkey tag) out to every cache node, retrying failed nodes in the background. */
import { Pool } from 'undici';

/** What to invalidate after a write: request paths (`/article/7`) and surrogate keys (`article-7`). */
export interface PurgeTarget {
  urls: string[];
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

const SILENT: PurgerLogger = { info() {}, warn() {}, error() {} };

/**
 * Varnish's default `http_req_hdr_len` is 8 KiB; tags are split over several PURGE requests so
 * one `xkey` header stays well below it.
 */
const MAX_XKEY_HEADER = 4000;

/**
 * Invalidates gateway caches after writes.
 *
 * @example
 * const purger = new Purger({ nodes: ['http://127.0.0.1:8080', 'http://127.0.0.1:8081'], logger });
 * await purger.purge({ urls: ['/article/7', '/articles'], tags: ['article-7'] });
 * await purger.close();
 */
export class Purger {
  readonly #nodes: { pool: Pool; prefix: string; name: string }[];
  readonly #localCaches: LocalCache[];
  readonly #timeoutMs: number;
  readonly #delayedPurgeMs: number;
  readonly #retryDeadlineMs: number;
  readonly #retryBaseMs: number;
  readonly #retryMaxMs: number;
  readonly #host: string | undefined;
  readonly #log: PurgerLogger;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #inflight = new Map<AbortController, Job>();
  /** Delayed second purges not yet run, so `drain()` can run them at once. */
  readonly #delayed = new Map<NodeJS.Timeout, () => Promise<void>>();
  /** First-round purges whose caller still waits. */
  readonly #firstRounds = new Set<Promise<void>>();
  /** Jobs waiting for (or running) a retry. */
  readonly #retrying = new Set<Job>();
  #idle: (() => void)[] = [];
  #nodeStats: PurgerNodeStats[] = [];
  #draining = false;
  #closed = false;
  #stats: PurgerStats = { sent: 0, failed: 0, retried: 0, pending: 0 };

  constructor(opts: PurgerOptions) {
    if (!Array.isArray(opts.nodes)) throw new TypeError('Purger: nodes must be an array of base URLs');
    this.#timeoutMs = nonNegative('timeoutMs', opts.timeoutMs, 2000);
    this.#delayedPurgeMs = nonNegative('delayedPurgeMs', opts.delayedPurgeMs, 1000);
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
      return { pool, prefix: url.pathname.replace(/\/+$/, ''), name: url.origin + url.pathname.replace(/\/+$/, '') };
    });
    this.#nodeStats = this.#nodes.map((n) => ({ node: n.name, sent: 0, failed: 0, retried: 0 }));
  }

  /**
   * Purges every URL, and the tags via one `xkey` header, on every node in parallel. Resolves once
   * every node answered or `timeoutMs` passed; never rejects. Failed nodes are retried in the
   * background, and a second purge follows after `delayedPurgeMs`.
   */
  purge(target: PurgeTarget): Promise<void> {
    if (this.#closed || this.#draining) return Promise.resolve();
    const first = this.#round(target, false);
    this.#firstRounds.add(first);
    void first.then(() => this.#firstRounds.delete(first));
    if (this.#delayedPurgeMs > 0) {
      const t = setTimeout(() => {
        this.#delayed.delete(t);
        void this.#round(target, true);
      }, this.#delayedPurgeMs);
      this.#delayed.set(t, () => this.#round(target, true));
    }
    return first;
  }

  stats(): PurgerStats {
    return { ...this.#stats };
  }

  /** Per-node counters, in the order of `nodes`. */
  nodeStats(): PurgerNodeStats[] {
    return this.#nodeStats.map((s) => ({ ...s }));
  }

  /**
   * For a graceful shutdown: takes no new purges, waits for first-round purges in flight, runs the
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
    await within(Promise.all([...this.#firstRounds]));
    const delayed = [...this.#delayed];
    this.#delayed.clear();
    const rounds: Promise<void>[] = [];
    for (const [t, run] of delayed) {
      clearTimeout(t);
      this.#timers.delete(t);
      rounds.push(run());
    }
    await within(Promise.all(rounds));
    if (this.#retrying.size > 0) await within(new Promise<void>((r) => this.#idle.push(r)));
    const abandoned = new Map<string, number>();
    const count = (node: string, n: number): void => {
      abandoned.set(node, (abandoned.get(node) ?? 0) + n);
    };
    for (const job of this.#retrying) count(this.#nodes[job.node]!.name, 1);
    for (const [, job] of this.#inflight) if (!this.#retrying.has(job)) count(this.#nodes[job.node]!.name, 1);
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
    for (const t of this.#delayed.keys()) clearTimeout(t);
    this.#delayed.clear();
    this.#retrying.clear();
    this.#wakeIdle();
    for (const c of this.#inflight.keys()) c.abort(new Error('purger closed'));
    this.#stats.pending = 0;
    await Promise.all(this.#nodes.map((n) => n.pool.destroy().catch(() => {})));
  }

  #round(target: PurgeTarget, delayed: boolean): Promise<void> {
    for (const cache of this.#localCaches) cache.invalidate(target);
    const requests = this.#requests(target);
    if (requests.length === 0 || this.#nodes.length === 0) return Promise.resolve();
    const deadline = Date.now() + this.#retryDeadlineMs;
    const attempts: Promise<void>[] = [];
    for (let node = 0; node < this.#nodes.length; node++) {
      for (const r of requests) {
        const job: Job = { node, path: r.path, headers: r.headers, deadline, attempt: 0, delayed };
        attempts.push(
          this.#attempt(job).then((outcome) => {
            if (outcome === 'retry') this.#scheduleRetry(job, false);
          }),
        );
      }
    }
    // Each attempt aborts itself after timeoutMs; the race is a second guard so the caller's
    // latency bound holds even if an abort is slow to surface.
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.#timeoutMs);
      void Promise.all(attempts).then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #requests(target: PurgeTarget): { path: string; headers: Record<string, string> }[] {
    const out: { path: string; headers: Record<string, string> }[] = [];
    for (const url of new Set(target.urls)) {
      if (typeof url !== 'string' || !url.startsWith('/')) {
        this.#log.error({ url }, 'purger: ignoring URL that is not an absolute path');
        continue;
      }
      out.push({ path: url, headers: {} });
    }
    // Tags are tokens separated by whitespace in the xkey header (vmod_xkey), so a tag may not contain any.
    const tags = [...new Set(target.tags)].filter((tag) => {
      const ok = typeof tag === 'string' && tag.length > 0 && !/[\s,]/.test(tag);
      if (!ok) this.#log.error({ tag }, 'purger: ignoring tag that is empty or contains whitespace/comma');
      return ok;
    });
    let chunk: string[] = [];
    let len = 0;
    for (const tag of tags) {
      if (chunk.length > 0 && len + tag.length + 1 > MAX_XKEY_HEADER) {
        out.push({ path: '/', headers: { xkey: chunk.join(' ') } });
        chunk = [];
        len = 0;
      }
      chunk.push(tag);
      len += tag.length + 1;
    }
    if (chunk.length > 0) out.push({ path: '/', headers: { xkey: chunk.join(' ') } });
    return out;
  }

  async #attempt(job: Job): Promise<Outcome> {
    if (this.#closed) return 'fatal';
    const node = this.#nodes[job.node]!;
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(new Error(`timeout after ${this.#timeoutMs} ms`)), this.#timeoutMs);
    this.#inflight.set(ctrl, job);
    this.#stats.sent++;
    const ns = this.#nodeStats[job.node]!;
    ns.sent++;
    if (job.attempt > 0 || job.delayed) ns.retried++;
    const headers: Record<string, string> = { ...job.headers };
    if (this.#host !== undefined) headers.host = this.#host;
    const ctx = { node: node.name, path: job.path, xkey: job.headers.xkey, attempt: job.attempt, delayed: job.delayed };
    try {
      const res = await node.pool.request({ method: 'PURGE', path: node.prefix + job.path, headers, signal: ctrl.signal });
      await res.body.dump();
      // 404 means the node held nothing for that URL/tag: the goal (no stale copy) is met.
      if (res.statusCode === 200 || res.statusCode === 204 || res.statusCode === 404) return 'ok';
      this.#stats.failed++;
      ns.failed++;
      if (res.statusCode >= 500) {
        this.#log.warn({ ...ctx, status: res.statusCode }, 'purger: cache node answered 5xx, will retry');
        return 'retry';
      }
      // 403 (not in the purgers ACL) or 405 (PURGE not configured) will not heal by retrying.
      this.#log.error({ ...ctx, status: res.statusCode }, 'purger: cache node refused PURGE, not retrying');
      return 'fatal';
    } catch (err) {
      if (this.#closed) return 'fatal';
      this.#stats.failed++;
      ns.failed++;
      this.#log.warn({ ...ctx, err: errorMessage(err) }, 'purger: cache node unreachable, will retry');
      return 'retry';
    } finally {
      clearTimeout(timer);
      this.#inflight.delete(ctrl);
    }
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
    this.#later(delay, () => {
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
    });
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

  #later(ms: number, fn: () => void): void {
    if (this.#closed) return;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    this.#timers.add(t);
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
