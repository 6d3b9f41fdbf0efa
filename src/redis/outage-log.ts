/**
 * @module redis/outage-log
 * One warn line when a Redis connection is lost or cannot be made, with the reason, and one info
 * line when it is back: once per outage, however many commands fail meanwhile.
 */
import type { RedisEndpoint } from './redis-url.js';

/** What the clients log through (pino's signature). */
export interface RedisLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Tracks whether a connection is down and logs the transitions. The target names the host and
 * port (or socket path) only: never the URL's user or password.
 * @example
 *   const outage = new OutageLog(logger, endpoint);
 *   outage.down(err); outage.down(err); // one warn line
 *   outage.up();                        // one info line
 */
export class OutageLog {
  readonly #logger: RedisLogger | undefined;
  readonly #target: string;
  #down = false;

  constructor(logger: RedisLogger | undefined, endpoint: RedisEndpoint) {
    this.#logger = logger;
    this.#target = endpoint.path ?? `${endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host}:${endpoint.port}`;
  }

  /** The connection failed or was lost. */
  down(err: Error): void {
    if (this.#down) return;
    this.#down = true;
    this.#logger?.warn({ redis: this.#target, reason: err.message || String(err) }, 'Redis unreachable');
  }

  /** A connection is ready again. */
  up(): void {
    if (!this.#down) return;
    this.#down = false;
    this.#logger?.info({ redis: this.#target }, 'Redis reachable again');
  }
}
