/**
 * @module redis/resp-client
 * roa's own Redis client, the opt-in adapter (`redisClient: 'resp'`): one pipelined connection
 * speaking RESP2. Every command issued during one turn of the event loop goes out in one write (a
 * small turn's, while an earlier write is unanswered, joins the turn its reply comes in), replies
 * are matched to commands in order, and one timer watches every deadline. It costs less CPU per
 * command than a general client: replies are read into one buffer per connection and parsed as
 * bytes where they lie, and each command costs one promise, mapped to its caller's value here (see
 * `send`).
 *
 * Fails closed and fast: while the connection is down, or backing off after a failure, commands
 * reject at once instead of waiting in a queue; a command unanswered within its deadline fails the
 * connection and everything still pending on it.
 */
import net from 'node:net';
import tls from 'node:tls';
import { evalScript, RedisReplyError, setReply, type RedisClient, type RedisClientOptions, type RedisReply, type RedisScript } from './redis-client.js';
import { handshakeCommands, parseRedisUrl, type RedisEndpoint } from './redis-url.js';
import { OutageLog } from './outage-log.js';

export { RedisReplyError } from './redis-client.js';

export interface RespClientOptions extends RedisClientOptions {
  /** Connection (and handshake) deadline in ms. */
  connectTimeoutMs: number;
  /** Per-command deadline in ms. */
  commandTimeoutMs: number;
}

/** Maps a reply to what the caller's promise resolves with; a throw rejects it. */
export type ReplyMapper<T> = (reply: RedisReply) => T;

const asIs: ReplyMapper<RedisReply> = (reply) => reply;

/**
 * `new Promise(capture)` hands its resolving functions to these two slots, so issuing a command
 * allocates no executor closure (this runs once per signed request).
 */
let capturedResolve: (value: unknown) => void = () => {};
let capturedReject: (err: Error) => void = () => {};
function capture(resolve: (value: unknown) => void, reject: (err: Error) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
}

/**
 * A turn's commands go out together in one write at its end (setImmediate, after the turn's
 * responses), at most this many per write so one huge turn does not build one huge string.
 * Not sooner: on a loaded service every write to Redis is a syscall that also runs the loopback
 * delivery and wakes redis-server, so fewer, fuller writes cost less CPU on both sides.
 */
const MAX_BATCH = 128;
/**
 * A turn's batch smaller than this waits while an earlier batch is unanswered, and leaves with the
 * commands of the turn its reply arrives in (at that turn's end). Under load the requests waiting on
 * Redis split into cohorts, one per batch in flight, and a small cohort's write costs as much as a
 * big one's: a syscall, and a wake-up of redis-server; merging small ones into the next turn's
 * batch saves those. Batches of this size or more go at once, so a busy service never waits on
 * Redis with work queued, and with nothing in flight nothing waits at all: a lone request pays no
 * extra round trip.
 */
const SMALL_BATCH = 16;
const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2000;
const CRLF = '\r\n';
/** Bytes read from Redis at once (the replies to a full batch take well under this). */
const READ_BUFFER_BYTES = 64 * 1024;

/** RESP encoding of one command (an array of bulk strings). */
export function encodeCommand(args: readonly string[]): string {
  let out = `*${args.length}${CRLF}`;
  for (const arg of args) out += `$${Buffer.byteLength(arg)}${CRLF}${arg}${CRLF}`;
  return out;
}

/**
 * @example
 *   const redis = new RespClient(new URL('redis://127.0.0.1:6379'), { connectTimeoutMs: 1000, commandTimeoutMs: 1000 });
 *   await redis.setIfAbsent('roa:nonce:n1', '1', 60_000); // true the first time
 */
export class RespClient implements RedisClient {
  readonly kind = 'resp' as const;
  private socket: net.Socket | undefined;
  /**
   * Commands awaiting replies, oldest first, as parallel arrays (one object per command cost a
   * measurable share of garbage collection): from `head` on, each slot's resolving functions, reply
   * mapper and issue time (Date.now(), for the deadline sweep).
   */
  private readonly resolvers: Array<((value: unknown) => void) | undefined> = [];
  private readonly rejecters: Array<((err: Error) => void) | undefined> = [];
  private readonly mappers: Array<ReplyMapper<unknown> | undefined> = [];
  private readonly issuedAt: number[] = [];
  /**
   * How many of the oldest pending commands are the connection's handshake (AUTH, SELECT): an error
   * reply to one fails the connection before any later reply is handed out.
   */
  private handshakePending = 0;
  private head = 0;
  /** Slots [head, written) went out and await replies; [written, length) wait in `outgoing`. */
  private written = 0;
  /** A small batch is waiting for the reply to one in flight (see SMALL_BATCH). */
  private heldForReply = false;
  /** That reply came: the next turn-end flush writes whatever is queued, however little. */
  private replyCame = false;
  /** Commands issued this turn, written together. */
  private outgoing = '';
  private outgoingCount = 0;
  private flushScheduled = false;
  /** The unparsed end of the last read (a reply split across reads), copied out of the read buffer. */
  private carry: Buffer | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private retryAt = 0;
  private backoffMs = MIN_BACKOFF_MS;
  private lastFailure: Error | undefined;
  private closed = false;
  /** Called by close() once the last pending reply is in. */
  private onDrained: (() => void) | undefined;
  private readonly endpoint: RedisEndpoint;
  private readonly handshake: string[][];
  private readonly wrap: (err: Error) => Error;
  private readonly outage: OutageLog;

  constructor(
    url: URL,
    private readonly opts: RespClientOptions,
  ) {
    this.endpoint = parseRedisUrl(url);
    this.handshake = handshakeCommands(this.endpoint);
    this.wrap = opts.wrapError ?? ((err) => err);
    this.outage = new OutageLog(opts.logger, this.endpoint);
  }

  /** Sends one command; resolves with its reply, rejects with RedisReplyError or a connection error. */
  command(args: readonly string[]): Promise<RedisReply> {
    return this.send(encodeCommand(args));
  }

  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    const ttl = String(Math.max(1, Math.ceil(ttlMs)));
    // SET key value NX PX ttl, encoded inline (the nonce store's hot path: every signed request).
    const command = `*6\r\n$3\r\nSET\r\n$${Buffer.byteLength(key)}\r\n${key}\r\n$${Buffer.byteLength(value)}\r\n${value}\r\n$2\r\nNX\r\n$2\r\nPX\r\n$${ttl.length}\r\n${ttl}\r\n`;
    return this.send(command, setReply);
  }

  runScript(script: RedisScript, keys: readonly string[], args: readonly string[]): Promise<RedisReply> {
    return evalScript(this, script, keys, args);
  }

  /**
   * Sends one already-encoded command (see encodeCommand). `map` turns the reply into the promise's
   * value (a throw rejects it), so a caller needs no second promise step of its own.
   */
  send(encoded: string): Promise<RedisReply>;
  send<T>(encoded: string, map: ReplyMapper<T>): Promise<T>;
  send(encoded: string, map: ReplyMapper<unknown> = asIs): Promise<unknown> {
    if (this.closed) return Promise.reject(this.wrap(new Error('Redis connection closed')));
    if (this.socket === undefined) {
      if (Date.now() < this.retryAt) {
        return Promise.reject(this.wrap(new Error(`Redis unavailable, retrying after back-off: ${this.lastFailure?.message ?? 'connection failed'}`)));
      }
      this.connect();
    }
    const promise = new Promise(capture);
    this.resolvers.push(capturedResolve);
    this.rejecters.push(capturedReject);
    this.mappers.push(map);
    this.issuedAt.push(Date.now());
    this.outgoing += encoded;
    if (++this.outgoingCount >= MAX_BATCH) this.flush();
    else if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flushAtTurnEnd);
    }
    return promise;
  }

  /** Waits for the replies still due (bounded by the command deadline), then closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    const socket = this.socket;
    if (socket === undefined) return;
    this.flush();
    const closedEvent = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    if (this.head < this.resolvers.length) this.onDrained = () => socket.end();
    else socket.end();
    const timer = setTimeout(() => socket.destroy(), this.opts.commandTimeoutMs);
    await closedEvent;
    clearTimeout(timer);
  }

  private readonly flushAtTurnEnd = (): void => {
    this.flushScheduled = false;
    if (!this.replyCame && this.outgoingCount < SMALL_BATCH && this.written > this.head) {
      // onBytes schedules the flush when the reply to the batch in flight comes.
      this.heldForReply = true;
      return;
    }
    this.flush();
  };

  /** Writes what is queued (an early flush leaves the rest of the turn to flushAtTurnEnd). */
  private flush(): void {
    this.heldForReply = false;
    this.replyCame = false;
    if (this.outgoing === '' || this.socket === undefined) return;
    const chunk = this.outgoing;
    this.outgoing = '';
    this.outgoingCount = 0;
    this.written = this.resolvers.length;
    this.socket.write(chunk);
  }

  private connect(): void {
    const { path, host, port } = this.endpoint;
    let socket: net.Socket;
    if (this.endpoint.tls) {
      // The server's certificate is checked against the host name unless the options say otherwise.
      socket = tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ...this.opts.tls });
      socket.on('data', (chunk: Buffer) => this.onBytes(socket, chunk, chunk.length));
    } else {
      // Replies are read into one buffer of our own, parsed in place: no Buffer and no 'data' event
      // per read (the reply to a batch is a few hundred bytes). A Unix socket skips the TCP stack on
      // both sides of every batch, for instances sharing one machine's Redis.
      const onread = { buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES), callback: (n: number, buf: Uint8Array) => this.onBytes(socket, buf as Buffer, n) };
      socket = net.connect(path !== undefined ? { path, onread } : { host, port, onread });
    }
    this.socket = socket;
    if (path === undefined) socket.setNoDelay(true);
    const connectTimer = setTimeout(() => socket.destroy(new Error(`Redis connect timed out after ${this.opts.connectTimeoutMs} ms`)), this.opts.connectTimeoutMs);
    socket.once(this.endpoint.tls ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    socket.on('error', (err) => this.fail(socket, err));
    socket.on('close', () => {
      clearTimeout(connectTimer);
      this.fail(socket, new Error('Redis connection closed'));
    });
    this.sweeper = setInterval(this.sweep, Math.max(5, Math.floor(this.opts.commandTimeoutMs / 4)));
    this.sweeper.unref();
    // The handshake goes first on the wire; a refused AUTH or SELECT fails the connection (onBytes).
    for (const args of this.handshake) {
      this.resolvers.push(ignore);
      this.rejecters.push(ignore);
      this.mappers.push(asIs);
      this.issuedAt.push(Date.now());
      this.handshakePending++;
      this.outgoing += encodeCommand(args);
    }
  }

  /** Parses the replies in `bytes[0, length)` (plus any carried-over part) and settles their commands. */
  private onBytes(socket: net.Socket, bytes: Buffer, length: number): boolean {
    if (this.socket !== socket) return false;
    let buf = bytes;
    let end = length;
    if (this.carry !== undefined) {
      buf = Buffer.concat([this.carry, bytes.subarray(0, length)]);
      end = buf.length;
      this.carry = undefined;
    }
    let pos = 0;
    while (pos < end) {
      const eol = lineEnd(buf, pos + 1, end);
      if (eol < 0) break;
      const type = buf[pos];
      let reply: RedisReply;
      let next = eol + 2;
      if (type === 43 /* + */) reply = eol - pos === 3 && buf[pos + 1] === 79 && buf[pos + 2] === 75 ? 'OK' : buf.toString('latin1', pos + 1, eol);
      else if (type === 36 /* $ */) {
        const size = parseInteger(buf, pos + 1, eol);
        if (size < 0) reply = null;
        else {
          if (end < next + size + 2) break; // the rest of the bulk string is still in flight
          reply = buf.toString('utf8', next, next + size);
          next += size + 2;
        }
      } else if (type === 45 /* - */) reply = new RedisReplyError(buf.toString('latin1', pos + 1, eol));
      else if (type === 58 /* : */) reply = parseInteger(buf, pos + 1, eol);
      else {
        next = readReply(buf, pos, end);
        if (next === INCOMPLETE) break;
        if (next === UNKNOWN_TYPE) {
          socket.destroy(new Error(`unexpected Redis reply type ${JSON.stringify(String.fromCharCode(unknownType))}`));
          return false;
        }
        reply = parsed;
      }
      pos = next;
      if (!this.settle(socket, reply)) return false;
    }
    if (pos < end) this.carry = Buffer.from(buf.subarray(pos, end));
    this.compact();
    if (this.heldForReply) {
      this.heldForReply = false;
      this.replyCame = true;
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.flushAtTurnEnd);
      }
    }
    if (this.onDrained !== undefined && this.head === this.resolvers.length) this.onDrained();
    return true;
  }

  /** Hands `reply` to the oldest pending command; false when the connection had to be dropped. */
  private settle(socket: net.Socket, reply: RedisReply): boolean {
    const i = this.head;
    const resolve = this.resolvers[i];
    if (resolve === undefined) {
      socket.destroy(new Error('Redis sent a reply nobody asked for'));
      return false;
    }
    const reject = this.rejecters[i]!;
    const map = this.mappers[i]!;
    this.resolvers[i] = undefined;
    this.rejecters[i] = undefined;
    this.mappers[i] = undefined;
    this.head = i + 1;
    if (this.handshakePending > 0) {
      this.handshakePending--;
      if (reply instanceof RedisReplyError) {
        // Commands pipelined behind a refused AUTH must not be answered as that connection.
        socket.destroy(new Error(`Redis refused the connection handshake: ${reply.message}`));
        return false;
      }
    }
    this.backoffMs = MIN_BACKOFF_MS;
    // A reply past the handshake: the connection works (logged only when it had been down).
    this.outage.up();
    if (reply instanceof RedisReplyError) reject(this.wrap(reply));
    else {
      let value: unknown;
      try {
        value = map(reply);
      } catch (err) {
        reject(this.wrap(err as Error));
        return true;
      }
      resolve(value);
    }
    return true;
  }

  /** Drops answered slots once they outnumber the live ones, so the arrays never grow without bound. */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.resolvers.length) {
      const answered = this.head;
      this.resolvers.splice(0, answered);
      this.rejecters.splice(0, answered);
      this.mappers.splice(0, answered);
      this.issuedAt.splice(0, answered);
      this.head = 0;
      this.written -= answered;
    }
  }

  /** One timer for every deadline: the oldest pending command is the first to run out. */
  private readonly sweep = (): void => {
    if (this.head < this.issuedAt.length && Date.now() - this.issuedAt[this.head]! > this.opts.commandTimeoutMs) {
      this.socket?.destroy(new Error(`Redis did not answer within ${this.opts.commandTimeoutMs} ms`));
    }
  };

  /** The connection is gone: everything pending on it fails, and new commands fail until the back-off ends. */
  private fail(socket: net.Socket, err: Error): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    if (!this.closed) this.outage.down(err);
    socket.destroy();
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.lastFailure = err;
    this.retryAt = Date.now() + this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    const failed = this.rejecters.slice(this.head);
    this.resolvers.length = 0;
    this.rejecters.length = 0;
    this.mappers.length = 0;
    this.issuedAt.length = 0;
    this.head = 0;
    this.written = 0;
    this.heldForReply = false;
    this.replyCame = false;
    this.handshakePending = 0;
    this.outgoing = '';
    this.outgoingCount = 0;
    this.carry = undefined;
    for (const reject of failed) reject!(this.wrap(err));
  }
}

function ignore(): void {}

/** Index of the CR of the first CRLF in buf[from, end), or -1. */
function lineEnd(buf: Buffer, from: number, end: number): number {
  for (let i = from; i < end - 1; i++) if (buf[i] === 13 && buf[i + 1] === 10) return i;
  return -1;
}

/** The (possibly negative) decimal integer in buf[from, to); NaN when it is not one. */
function parseInteger(buf: Buffer, from: number, to: number): number {
  let i = from;
  const negative = buf[i] === 45; /* - */
  if (negative) i++;
  if (i === to || to - i > 15) return Number(buf.toString('latin1', from, to));
  let n = 0;
  for (; i < to; i++) {
    const d = buf[i]! - 48;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return negative ? -n : n;
}

const INCOMPLETE = -1;
const UNKNOWN_TYPE = -2;
/** The reply readReply parsed last, and the type byte it did not know. */
let parsed: RedisReply = null;
let unknownType = 0;

/**
 * Reads the reply starting at buf[pos] (any RESP2 type, arrays nested to any depth, and RESP3's
 * `_` null) into `parsed`: the position after it, INCOMPLETE when part of it is still in flight, or
 * UNKNOWN_TYPE. An error inside an array is a RedisReplyError element, as EXEC answers.
 */
function readReply(buf: Buffer, pos: number, end: number): number {
  const eol = lineEnd(buf, pos + 1, end);
  if (eol < 0) return INCOMPLETE;
  const type = buf[pos]!;
  const next = eol + 2;
  switch (type) {
    case 43 /* + */:
      parsed = buf.toString('latin1', pos + 1, eol);
      return next;
    case 45 /* - */:
      parsed = new RedisReplyError(buf.toString('latin1', pos + 1, eol));
      return next;
    case 58 /* : */:
      parsed = parseInteger(buf, pos + 1, eol);
      return next;
    case 95 /* _ */:
      parsed = null;
      return next;
    case 36 /* $ */: {
      const size = parseInteger(buf, pos + 1, eol);
      if (size < 0) {
        parsed = null;
        return next;
      }
      if (end < next + size + 2) return INCOMPLETE;
      parsed = buf.toString('utf8', next, next + size);
      return next + size + 2;
    }
    case 42 /* * */: {
      const count = parseInteger(buf, pos + 1, eol);
      if (count < 0) {
        parsed = null;
        return next;
      }
      const items: RedisReply[] = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        at = readReply(buf, at, end);
        if (at < 0) return at;
        items.push(parsed);
      }
      parsed = items;
      return at;
    }
    default:
      unknownType = type;
      return UNKNOWN_TYPE;
  }
}
