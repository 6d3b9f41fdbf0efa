/**
 * @module operations/readiness
 * Whether a process can serve: named checks (database, nonce store, upstream) run together under
 * a deadline, their result shared by the probes of the next second, and "no" while shutting down.
 */

/** One dependency's check: resolves when it answers, rejects (or outlasts the deadline) when not. */
export type ReadinessCheck = () => Promise<unknown>;

export interface ReadinessOptions {
  /** How long one result is reused, so probes cannot multiply the load on what they check. Default 1000 ms. */
  ttlMs?: number;
  /** Past it a check counts as failed. Default 1000 ms (a Kubernetes probe's default timeout is 1 s). */
  timeoutMs?: number;
  now?: () => number;
}

export interface ReadinessResult {
  ready: boolean;
  /** Each check's outcome: `ok`, or the reason it failed. */
  checks: Record<string, string>;
  shuttingDown: boolean;
}

/**
 * @example
 *   const readiness = new Readiness({ database: () => store.ping() });
 *   const { ready } = await readiness.check();
 */
export class Readiness {
  #shuttingDown = false;
  #last: { at: number; result: Promise<ReadinessResult> } | undefined;
  readonly #ttlMs: number;
  readonly #timeoutMs: number;
  readonly #now: () => number;

  constructor(private readonly checks: Record<string, ReadinessCheck>, opts: ReadinessOptions = {}) {
    this.#ttlMs = opts.ttlMs ?? 1000;
    this.#timeoutMs = opts.timeoutMs ?? 1000;
    this.#now = opts.now ?? Date.now;
  }

  /** From now on not ready: a balancer stops sending new work while requests in flight finish. */
  shutDown(): void {
    this.#shuttingDown = true;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Runs the checks, or shares a run younger than the TTL (one still running included). */
  check(): Promise<ReadinessResult> {
    if (this.#shuttingDown) return Promise.resolve({ ready: false, checks: {}, shuttingDown: true });
    const now = this.#now();
    if (this.#last === undefined || now - this.#last.at >= this.#ttlMs) this.#last = { at: now, result: this.#run() };
    return this.#last.result;
  }

  async #run(): Promise<ReadinessResult> {
    const names = Object.keys(this.checks);
    const outcomes = await Promise.all(names.map((name) => this.#one(this.checks[name]!)));
    const checks: Record<string, string> = {};
    names.forEach((name, i) => (checks[name] = outcomes[i]!));
    return { ready: outcomes.every((o) => o === 'ok'), checks, shuttingDown: false };
  }

  async #one(check: ReadinessCheck): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`no answer within ${this.#timeoutMs} ms`), this.#timeoutMs);
    });
    try {
      return await Promise.race([check().then(() => 'ok', reason), late]);
    } finally {
      clearTimeout(timer);
    }
  }
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message || err.name : String(err);
}
