/**
 * @module redis/node-redis-client
 * The default Redis adapter, on node-redis v5 (it writes the commands of one event-loop turn
 * together). node-redis is imported only here, on first use: loading it defines a String subclass
 * (its VerbatimString), after which V8 may run string-heavy code elsewhere in the process more
 * slowly, so a service without Redis, or with the `resp` client, never loads it.
 */
import net from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { createClient, RedisClientOptions as NodeRedisOptions } from 'redis';
import { evalScript, setReply, type RedisClient, type RedisClientOptions, type RedisReply, type RedisScript } from './redis-client.js';
import { parseRedisUrl, type RedisEndpoint } from './redis-url.js';
import { OutageLog, type RedisLogger } from './outage-log.js';

/** A node-redis client as `createClient` makes it. */
export type NodeRedis = ReturnType<typeof createClient>;

type ReconnectStrategy = false | ((retries: number) => number);

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2000;

/** node-redis's options for an endpoint (host or Unix socket, TLS, credentials, database). */
export function nodeRedisOptions(endpoint: RedisEndpoint, connectTimeoutMs: number, reconnectStrategy: ReconnectStrategy, tls: ConnectionOptions = {}): NodeRedisOptions {
  const { host, port, path, username, password, database } = endpoint;
  const common = { connectTimeout: connectTimeoutMs, reconnectStrategy };
  const socket = path !== undefined
    ? { ...common, path, tls: false as const }
    : endpoint.tls
      // The server's certificate is checked against the host name unless the options say otherwise.
      ? { ...common, host, port, servername: net.isIP(host) ? undefined : host, ...tls, tls: true as const }
      : { ...common, host, port };
  return {
    socket,
    ...(username !== '' ? { username } : {}),
    ...(password !== '' ? { password } : {}),
    ...(database !== 0 ? { database } : {}),
  };
}

/**
 * A node-redis client for `url` that reconnects by itself (back-off up to 2 s) and refuses
 * commands at once while it is not connected, for rate-limiter-flexible's RateLimiterRedis (the
 * throttle). Resolves once the first connection is ready or has failed (or after the connect timeout).
 * @example
 *   const client = await connectNodeRedis(new URL('redis://127.0.0.1:6379'), { connectTimeoutMs: 1000 });
 */
export async function connectNodeRedis(url: URL, options: { connectTimeoutMs: number; tls?: ConnectionOptions; logger?: RedisLogger }): Promise<NodeRedis> {
  const endpoint = parseRedisUrl(url);
  const outage = new OutageLog(options.logger, endpoint);
  const { createClient } = await import('redis');
  const reconnect = (retries: number): number => Math.min(MIN_BACKOFF_MS * 2 ** retries, MAX_BACKOFF_MS);
  const client = createClient({ ...nodeRedisOptions(endpoint, options.connectTimeoutMs, reconnect, options.tls), disableOfflineQueue: true });
  // Each failure also fails the commands it touches, and those are what the caller acts on.
  client.on('error', (err: Error) => outage.down(err));
  client.on('ready', () => outage.up());
  client.connect().catch(() => {});
  // The first answer (ready, or a failure) is awaited, so that first commands are not refused as
  // "not connected" while a healthy Redis is still being reached.
  await new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      client.off('ready', done);
      client.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, options.connectTimeoutMs);
    client.on('ready', done);
    client.on('error', done);
  });
  return client;
}

/**
 * The {@link RedisClient} on node-redis. node-redis has no deadline for a written command, so this
 * keeps one: past it the client is destroyed (failing everything pending) and the next command
 * after a back-off opens a new one, as roa's RESP client does.
 * @example
 *   const redis = new NodeRedisClient(new URL('redis://127.0.0.1:6379'), { connectTimeoutMs: 1000, commandTimeoutMs: 1000 });
 *   await redis.setIfAbsent('roa:nonce:n1', '1', 60_000); // true the first time
 */
export class NodeRedisClient implements RedisClient {
  readonly kind = 'node-redis' as const;
  readonly #endpoint: RedisEndpoint;
  readonly #opts: Required<Pick<RedisClientOptions, 'connectTimeoutMs' | 'commandTimeoutMs'>> & RedisClientOptions;
  readonly #wrap: (err: Error) => Error;
  readonly #loading: Promise<void>;
  #create: typeof createClient | undefined;
  #client: NodeRedis | undefined;
  /**
   * Settles when the current client is ready (its AUTH and SELECT answered) or has failed. Commands
   * wait for it rather than being written behind the handshake: a command pipelined behind a
   * refused AUTH must not be answered as that connection.
   */
  #connecting: Promise<void> | undefined;
  #connectFailed: ((err: Error) => void) | undefined;
  /** Issue times (Date.now()) of the commands awaiting replies, oldest first. */
  readonly #pending = new Map<number, number>();
  #nextId = 0;
  #sweeper: NodeJS.Timeout | undefined;
  #retryAt = 0;
  #backoffMs = MIN_BACKOFF_MS;
  /** Why the last client was given up (its pending commands fail with this). */
  #failure: Error | undefined;
  #closed = false;
  readonly #outage: OutageLog;

  constructor(url: URL, opts: RedisClientOptions & { connectTimeoutMs: number; commandTimeoutMs: number }) {
    this.#endpoint = parseRedisUrl(url);
    this.#outage = new OutageLog(opts.logger, this.#endpoint);
    this.#opts = opts;
    this.#wrap = opts.wrapError ?? ((err) => err);
    this.#loading = import('redis').then((m) => {
      this.#create = m.createClient;
    });
    this.#loading.catch(() => {});
  }

  command(args: readonly string[]): Promise<RedisReply> {
    return this.#send(args, asIs);
  }

  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.#send(['SET', key, value, 'NX', 'PX', String(Math.max(1, Math.ceil(ttlMs)))], setReply);
  }

  runScript(script: RedisScript, keys: readonly string[], args: readonly string[]): Promise<RedisReply> {
    return evalScript(this, script, keys, args);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#loading.catch(() => {});
    // Commands waiting for the handshake go out first (the deadline sweep bounds the wait).
    await this.#connecting?.catch(() => {});
    const client = this.#client;
    this.#client = undefined;
    clearInterval(this.#sweeper);
    if (client !== undefined) await closeNodeRedis(client, this.#opts.commandTimeoutMs);
  }

  #send<T>(args: readonly string[], map: (reply: RedisReply) => T): Promise<T> {
    if (this.#closed) return Promise.reject(this.#wrap(new Error('Redis connection closed')));
    let client = this.#client;
    if (client === undefined) {
      if (this.#create === undefined) return this.#loading.then(() => this.#send(args, map), (err: Error) => Promise.reject(this.#wrap(err)));
      if (Date.now() < this.#retryAt) {
        return Promise.reject(this.#wrap(new Error(`Redis unavailable, retrying after back-off: ${this.#failure?.message ?? 'connection failed'}`)));
      }
      client = this.#open(this.#create);
    }
    if (this.#connecting !== undefined) return this.#afterHandshake(this.#connecting, args, map);
    return this.#issue(client, args, map);
  }

  /** Sends once the connection is ready; the wait counts against the command's deadline. */
  #afterHandshake<T>(connecting: Promise<void>, args: readonly string[], map: (reply: RedisReply) => T): Promise<T> {
    const id = this.#nextId++;
    this.#pending.set(id, Date.now());
    return connecting.then(
      () => {
        this.#pending.delete(id);
        const client = this.#client;
        if (client === undefined) throw this.#wrap(this.#failure ?? new Error('Redis connection closed'));
        return this.#issue(client, args, map);
      },
      (err: Error) => {
        this.#pending.delete(id);
        throw this.#wrap(err);
      },
    );
  }

  #issue<T>(client: NodeRedis, args: readonly string[], map: (reply: RedisReply) => T): Promise<T> {
    const id = this.#nextId++;
    this.#pending.set(id, Date.now());
    return client.sendCommand<RedisReply>(args).then(
      (reply) => {
        this.#pending.delete(id);
        try {
          return map(reply);
        } catch (err) {
          throw this.#wrap(err as Error);
        }
      },
      (err: Error) => {
        this.#pending.delete(id);
        // A client given up on fails its commands with node-redis's "disconnects client": the reason is ours.
        throw this.#wrap(this.#client !== client && this.#failure !== undefined ? this.#failure : err);
      },
    );
  }

  #open(create: typeof createClient): NodeRedis {
    // No reconnecting inside node-redis: a failed connection is dropped here, and commands fail at
    // once until the back-off ends (nothing waits in node-redis's offline queue meanwhile).
    const client = create(nodeRedisOptions(this.#endpoint, this.#opts.connectTimeoutMs, false, this.#opts.tls));
    this.#client = client;
    this.#connecting = new Promise<void>((resolve, reject) => {
      this.#connectFailed = reject;
      client.on('ready', () => {
        this.#outage.up();
        this.#backoffMs = MIN_BACKOFF_MS;
        this.#connecting = undefined;
        this.#connectFailed = undefined;
        resolve();
      });
    });
    this.#connecting.catch(() => {});
    client.on('error', (err: Error) => this.#fail(client, err));
    client.connect().catch((err: Error) => this.#fail(client, err));
    clearInterval(this.#sweeper);
    this.#sweeper = setInterval(this.#sweep, Math.max(5, Math.floor(this.#opts.commandTimeoutMs / 4)));
    this.#sweeper.unref();
    return client;
  }

  /** One timer for every deadline: the oldest pending command is the first to run out. */
  readonly #sweep = (): void => {
    const oldest = this.#pending.values().next();
    const client = this.#client;
    if (client !== undefined && oldest.done !== true && Date.now() - oldest.value > this.#opts.commandTimeoutMs) {
      this.#fail(client, new Error(`Redis did not answer within ${this.#opts.commandTimeoutMs} ms`));
    }
  };

  /** The client is gone: everything pending on it fails, and new commands fail until the back-off ends. */
  #fail(client: NodeRedis, err: Error): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#failure = err;
    if (!this.#closed) this.#outage.down(err);
    this.#retryAt = Date.now() + this.#backoffMs;
    this.#backoffMs = Math.min(this.#backoffMs * 2, MAX_BACKOFF_MS);
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    this.#connectFailed?.(err);
    this.#connecting = undefined;
    this.#connectFailed = undefined;
    destroy(client);
  }
}

const asIs = (reply: RedisReply): RedisReply => reply;

/**
 * Closes a client once its pending replies are in. A client not connected is destroyed at once; one
 * whose Redis stays silent past `timeoutMs` is let go (unref'd: node-redis cannot destroy a client
 * already closing), so it never holds the process open.
 */
export function closeNodeRedis(client: NodeRedis, timeoutMs: number): Promise<void> {
  if (!client.isReady) {
    destroy(client);
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      client.unref();
      resolve();
    }, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    client.close().then(done, () => {
      destroy(client);
      done();
    });
  });
}

/** Destroys a client, failing its pending commands (a client that closed itself refuses; that is fine). */
function destroy(client: NodeRedis): void {
  try {
    client.destroy();
  } catch {
    // Already closed.
  }
}
