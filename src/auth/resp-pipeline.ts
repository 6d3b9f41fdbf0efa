/**
 * @module auth/resp-pipeline
 * One pipelined connection to Redis speaking RESP2, for the nonce store's hot path: every command
 * issued during one turn of the event loop goes out in one write, replies are matched to commands
 * in order, and one timer watches every deadline. A full client (node-redis) spent more CPU per
 * `SET NX PX` than the rest of a signed request (promise chains, a timer and an AbortSignal per
 * command); this does only what the store needs.
 *
 * Fails closed and fast: while the connection is down, or backing off after a failure, commands
 * reject at once instead of waiting in a queue; a command unanswered within its deadline fails the
 * connection and everything still pending on it.
 */
import net from 'node:net';
import tls from 'node:tls';

export interface RespPipelineOptions {
  /** Connection (and handshake) deadline in ms. */
  connectTimeoutMs: number;
  /** Per-command deadline in ms. */
  commandTimeoutMs: number;
}

/** A simple or bulk string, an integer, or null (a nil bulk string). */
export type RespReply = string | number | null;

/** Redis answered with an error reply (`-ERR …`). The connection stays usable. */
export class RedisReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisReplyError';
  }
}

interface Pending {
  resolve: (reply: RespReply) => void;
  reject: (err: Error) => void;
  /** When it was issued (Date.now()), for the deadline sweep. */
  at: number;
  /** Part of the handshake: an error reply fails the connection before any later reply is handed out. */
  handshake?: boolean;
}

/**
 * A turn's commands go out together in one write at its end (setImmediate, after the turn's
 * responses), at most this many per write so one huge turn does not build one huge string.
 *
 * Why not sooner: on a loaded service every write to Redis is a syscall that also runs the loopback
 * delivery and wakes redis-server, costing tens of microseconds in a VM. An earlier version sent
 * every dozen commands, to let replies come back while the turn was still working; on the
 * 2026-11-22 guest that measured worse than one write per turn (turns held ~24 nonces under load:
 * writes per request went 0.10 → 0.042; the service's CPU per request was lower in four of five
 * interleaved A/B runs, redis-server's in all five; bench/RESULTS.md has the figures).
 */
const MAX_BATCH = 128;
const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2000;
const CRLF = '\r\n';

/** RESP encoding of one command (an array of bulk strings). */
export function encodeCommand(args: readonly string[]): string {
  let out = `*${args.length}${CRLF}`;
  for (const arg of args) out += `$${Buffer.byteLength(arg)}${CRLF}${arg}${CRLF}`;
  return out;
}

export class RespPipeline {
  private socket: net.Socket | undefined;
  private readonly pending: Pending[] = [];
  /** Index of the oldest unanswered command in `pending` (the array is compacted now and then). */
  private head = 0;
  /** Commands issued this turn, written together. */
  private outgoing = '';
  private outgoingCount = 0;
  private flushScheduled = false;
  /** Unparsed reply bytes, as latin1 so string offsets are byte offsets. */
  private input = '';
  private sweeper: NodeJS.Timeout | undefined;
  private retryAt = 0;
  private backoffMs = MIN_BACKOFF_MS;
  private lastFailure: Error | undefined;
  private closed = false;
  /** Called by close() once the last pending reply is in. */
  private onDrained: (() => void) | undefined;
  private readonly handshake: string[][];

  constructor(
    private readonly url: URL,
    private readonly opts: RespPipelineOptions,
  ) {
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new TypeError(`not a redis:// or rediss:// URL: ${url.protocol}`);
    this.handshake = handshake(url);
  }

  /** Sends one command; resolves with its reply, rejects with RedisReplyError or a connection error. */
  command(args: readonly string[]): Promise<RespReply> {
    return this.send(encodeCommand(args));
  }

  /** Sends one already-encoded command (see encodeCommand). */
  send(encoded: string): Promise<RespReply> {
    if (this.closed) return Promise.reject(new Error('Redis connection closed'));
    if (this.socket === undefined) {
      if (Date.now() < this.retryAt) {
        return Promise.reject(new Error(`Redis unavailable, retrying after back-off: ${this.lastFailure?.message ?? 'connection failed'}`));
      }
      this.connect();
    }
    return new Promise<RespReply>((resolve, reject) => {
      this.pending.push({ resolve, reject, at: Date.now() });
      this.outgoing += encoded;
      if (++this.outgoingCount >= MAX_BATCH) this.flush();
      else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.flushAtTurnEnd);
      }
    });
  }

  /** Waits for the replies still due (bounded by the command deadline), then closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    const socket = this.socket;
    if (socket === undefined) return;
    this.flush();
    const closedEvent = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    if (this.head < this.pending.length) this.onDrained = () => socket.end();
    else socket.end();
    const timer = setTimeout(() => socket.destroy(), this.opts.commandTimeoutMs);
    await closedEvent;
    clearTimeout(timer);
  }

  private readonly flushAtTurnEnd = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  /** Writes what is queued (an early flush leaves the rest of the turn to flushAtTurnEnd). */
  private flush(): void {
    if (this.outgoing === '' || this.socket === undefined) return;
    const chunk = this.outgoing;
    this.outgoing = '';
    this.outgoingCount = 0;
    this.socket.write(chunk);
  }

  private connect(): void {
    const host = this.url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
    const port = Number(this.url.port || 6379);
    const socket = this.url.protocol === 'rediss:' ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host }) : net.connect({ host, port });
    this.socket = socket;
    socket.setNoDelay(true);
    socket.setEncoding('latin1');
    const connectTimer = setTimeout(() => socket.destroy(new Error(`Redis connect timed out after ${this.opts.connectTimeoutMs} ms`)), this.opts.connectTimeoutMs);
    socket.once(this.url.protocol === 'rediss:' ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('error', (err) => this.fail(socket, err));
    socket.on('close', () => {
      clearTimeout(connectTimer);
      this.fail(socket, new Error('Redis connection closed'));
    });
    this.sweeper = setInterval(this.sweep, Math.max(5, Math.floor(this.opts.commandTimeoutMs / 4)));
    this.sweeper.unref();
    // The handshake goes first on the wire; a refused AUTH or SELECT fails the connection (onData).
    for (const args of this.handshake) {
      this.pending.push({ resolve: () => {}, reject: () => {}, at: Date.now(), handshake: true });
      this.outgoing += encodeCommand(args);
    }
  }

  private onData(chunk: string): void {
    const buf = this.input === '' ? chunk : this.input + chunk;
    let pos = 0;
    while (pos < buf.length) {
      const eol = buf.indexOf(CRLF, pos);
      if (eol < 0) break;
      const type = buf.charCodeAt(pos);
      let reply: RespReply | RedisReplyError;
      let next = eol + 2;
      if (type === 43 /* + */) reply = buf.slice(pos + 1, eol);
      else if (type === 36 /* $ */) {
        const length = Number(buf.slice(pos + 1, eol));
        if (length < 0) reply = null;
        else {
          if (buf.length < next + length + 2) break; // the rest of the bulk string is still in flight
          reply = Buffer.from(buf.slice(next, next + length), 'latin1').toString('utf8');
          next += length + 2;
        }
      } else if (type === 45 /* - */) reply = new RedisReplyError(buf.slice(pos + 1, eol));
      else if (type === 58 /* : */) reply = Number(buf.slice(pos + 1, eol));
      else if (type === 95 /* _ (RESP3 null) */) reply = null;
      else {
        this.socket?.destroy(new Error(`unexpected Redis reply type ${JSON.stringify(buf[pos])}`));
        return;
      }
      pos = next;
      const waiting = this.pending[this.head];
      if (waiting === undefined) {
        this.socket?.destroy(new Error('Redis sent a reply nobody asked for'));
        return;
      }
      this.pending[this.head++] = undefined as unknown as Pending;
      if (reply instanceof RedisReplyError && waiting.handshake === true) {
        // Commands pipelined behind a refused AUTH must not be answered as that connection.
        this.socket?.destroy(new Error(`Redis refused the connection handshake: ${reply.message}`));
        return;
      }
      this.backoffMs = MIN_BACKOFF_MS;
      if (reply instanceof RedisReplyError) waiting.reject(reply);
      else waiting.resolve(reply);
    }
    this.input = pos < buf.length ? buf.slice(pos) : '';
    this.compact();
    if (this.onDrained !== undefined && this.head === this.pending.length) this.onDrained();
  }

  /** Drops answered slots once they outnumber the live ones, so `pending` never grows without bound. */
  private compact(): void {
    if (this.head > 1024 && this.head * 2 > this.pending.length) {
      this.pending.splice(0, this.head);
      this.head = 0;
    }
  }

  /** One timer for every deadline: the oldest pending command is the first to run out. */
  private readonly sweep = (): void => {
    const oldest = this.pending[this.head];
    if (oldest !== undefined && Date.now() - oldest.at > this.opts.commandTimeoutMs) {
      this.socket?.destroy(new Error(`Redis did not answer within ${this.opts.commandTimeoutMs} ms`));
    }
  };

  /** The connection is gone: everything pending on it fails, and new commands fail until the back-off ends. */
  private fail(socket: net.Socket, err: Error): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    socket.destroy();
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.lastFailure = err;
    this.retryAt = Date.now() + this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    const failed = this.pending.splice(this.head);
    this.pending.length = 0;
    this.head = 0;
    this.outgoing = '';
    this.outgoingCount = 0;
    this.input = '';
    for (const p of failed) p.reject(err);
  }
}

/** AUTH and SELECT for the credentials and database number in a redis:// URL. */
function handshake(url: URL): string[][] {
  const commands: string[][] = [];
  const password = decodeURIComponent(url.password);
  const username = decodeURIComponent(url.username);
  if (password !== '') commands.push(username !== '' ? ['AUTH', username, password] : ['AUTH', password]);
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && db !== '0') {
    if (!/^\d+$/.test(db)) throw new TypeError(`Redis database must be a number, got ${JSON.stringify(db)}`);
    commands.push(['SELECT', db]);
  }
  return commands;
}
