/**
 * @module redis/redis-client
 * What roa needs of a Redis connection (the nonce store and the failed-login throttle), with one
 * adapter on node-redis (the default) and one on roa's own RESP client (opt-in). See open-redis.ts.
 */
import { createHash } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import type { RedisLogger } from './outage-log.js';

/** Which client speaks to Redis: node-redis (default), or roa's own RESP client. */
export type RedisClientKind = 'node-redis' | 'resp';

export const REDIS_CLIENT_KINDS: readonly RedisClientKind[] = ['node-redis', 'resp'];

/**
 * A RESP2 reply: a simple or bulk string, an integer, null (nil bulk string or nil array), or an
 * array of replies (an error inside an array, as EXEC may answer, is a RedisReplyError element).
 */
export type RedisReply = string | number | null | RedisReplyError | RedisReply[];

/** Redis answered with an error reply (`-ERR …`). The connection stays usable. */
export class RedisReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisReplyError';
  }
}

/** A Lua script and its SHA-1, for EVALSHA. */
export interface RedisScript {
  readonly source: string;
  readonly sha1: string;
}

/** A script ready for {@link RedisClient.runScript}. */
export function redisScript(source: string): RedisScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

export interface RedisClientOptions {
  /** Connection (and handshake) deadline in ms. Default 1000. */
  connectTimeoutMs?: number;
  /** Per-command deadline in ms: an unanswered command fails the connection. Default 1000. */
  commandTimeoutMs?: number;
  /** TLS options for `rediss://` (ca, cert, key, servername, …); the host name is checked by default. */
  tls?: ConnectionOptions;
  /**
   * What a command's promise rejects with, made from the failure (a RedisReplyError, a connection
   * error, or what a reply mapping threw). Default: the failure itself.
   */
  wrapError?: (err: Error) => Error;
  /** Where a lost or failed connection is logged at warn with its reason, once per outage (redis/outage-log). */
  logger?: RedisLogger;
}

/**
 * One connection to Redis. Fails closed and fast: while the connection is down, or backing off
 * after a failure, commands reject at once instead of waiting in a queue, and a command unanswered
 * within its deadline fails the connection and everything pending on it.
 */
export interface RedisClient {
  readonly kind: RedisClientKind;
  /** Sends one command; resolves with its reply, rejects with RedisReplyError or a connection error. */
  command(args: readonly string[]): Promise<RedisReply>;
  /** `SET key value NX PX ttlMs`: true when the key was set, false when it existed. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** Runs a script by EVALSHA, sending its source (EVAL) only when Redis answers NOSCRIPT. */
  runScript(script: RedisScript, keys: readonly string[], args: readonly string[]): Promise<RedisReply>;
  /** Waits for the replies still due (bounded by the command deadline), then closes the connection. */
  close(): Promise<void>;
}

/** The reply to `SET … NX`: OK when set, nil when the key existed; anything else throws. */
export function setReply(reply: unknown): boolean {
  if (reply === 'OK') return true;
  if (reply === null) return false;
  throw new Error(`unexpected Redis reply to SET: ${JSON.stringify(reply)}`);
}

/** True when `err` (or what it wraps) is Redis's NOSCRIPT: the script is not cached (yet, or any more). */
function isNoScript(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) if (e.message.startsWith('NOSCRIPT')) return true;
  return false;
}

/**
 * EVALSHA, then EVAL when Redis does not know the script (first use, a restart, SCRIPT FLUSH); EVAL
 * caches it for the next EVALSHA.
 */
export function evalScript(client: Pick<RedisClient, 'command'>, script: RedisScript, keys: readonly string[], args: readonly string[]): Promise<RedisReply> {
  const tail = [String(keys.length), ...keys, ...args];
  return client.command(['EVALSHA', script.sha1, ...tail]).catch((err: unknown) => {
    if (!isNoScript(err)) throw err;
    return client.command(['EVAL', script.source, ...tail]);
  });
}
