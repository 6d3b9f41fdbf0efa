/**
 * @module http/turn-flush
 * Responses finished during one turn of the event loop leave together at its end.
 *
 * node writes a response the moment `res.end()` runs: it corks the socket, queues headers and body,
 * then uncorks, which is one `writev` per response. On a loaded server each of those writes also
 * wakes the client's reader: the kernel delivers loopback (and fast-LAN) segments in the writer's
 * context, and waking a sleeping peer is costly, most of all in a virtual machine, where it is an
 * inter-processor interrupt. Measured here, that wake-up made a response's kernel time grow with
 * every microsecond of JavaScript before it (the slower the server, the more often the client
 * slept between responses).
 *
 * With flushing per turn, the uncork that ends a response is deferred to `setImmediate`: every
 * socket whose response ended while node handled one batch of readable sockets is uncorked, in
 * order, right after that batch. Nothing else changes: `res.end()` has run, `writableEnded` and
 * `headersSent` are as before, 'finish' still follows the write, pipelined responses keep their
 * order. The cost is latency of at most one batch of request handling, never more than a turn.
 *
 * This is the `turnFlush` fast path (http/fast-paths): it relies on node's HTTP response ending with
 * a `socket.uncork()` looked up on the socket, and on sockets using Writable's own uncork.
 */
import { Socket } from 'node:net';
import { Writable } from 'node:stream';
import type { TLSSocket } from 'node:tls';

const QUEUED = Symbol('roa.uncorkQueued');

type DeferringSocket = Socket & { [QUEUED]: boolean };

const realUncork = Writable.prototype.uncork;

/**
 * Whether a socket's uncork is Writable's (so a deferred call to it does what the socket's would)
 * and Writable reports its cork depth (`writableCorked`).
 */
export function detectTurnFlush(socketProto: object = Socket.prototype): boolean {
  const corked = Object.getOwnPropertyDescriptor(Writable.prototype, 'writableCorked');
  return typeof realUncork === 'function' && (socketProto as { uncork?: unknown }).uncork === realUncork && typeof corked?.get === 'function';
}

export const turnFlushDetected = detectTurnFlush();

const queue: DeferringSocket[] = [];
let scheduled = false;
/**
 * True from a flush until the next request arrives. The flush of a turn is scheduled by its first
 * request, so it runs ahead of the check-phase work that request sets off (a group commit at
 * setImmediate, say). Responses that end after it were released by such work or by a timer, not by
 * requests read in the poll phase: waiting for another setImmediate would hold them a whole extra
 * turn, so they leave as soon as the current callback and its microtasks are done (nextTick).
 */
let afterFlush = false;

/**
 * Called as each request starts: responses ending from here on wait for the end of this turn's
 * batch, whose flush is scheduled now (before anything the request itself schedules).
 */
export function requestStarted(): void {
  afterFlush = false;
  if (!scheduled) {
    scheduled = true;
    setImmediate(flush);
  }
}

function flush(): void {
  scheduled = false;
  afterFlush = true;
  // Sockets queued by a flush's own callbacks wait for the next turn.
  const sockets = queue.splice(0, queue.length);
  for (const socket of sockets) {
    socket[QUEUED] = false;
    realUncork.call(socket);
  }
}

/** Replaces `uncork` on one socket: the last level of cork is released at the end of the turn. */
function deferredUncork(this: DeferringSocket): void {
  // Nested corks (corked > 1) unwind at once, as usual; only the release that would write waits.
  if (this.writableCorked !== 1) {
    realUncork.call(this);
    return;
  }
  if (this[QUEUED]) return;
  this[QUEUED] = true;
  queue.push(this);
  if (!scheduled) {
    scheduled = true;
    if (afterFlush) process.nextTick(flush);
    else setImmediate(flush);
  }
}

/**
 * A server's 'connection' listener: the socket's final uncork waits for the end of the turn. Leaves
 * the socket alone when `turnFlushDetected` is false.
 */
export function flushPerTurn(socket: Socket): void {
  if (!turnFlushDetected) return;
  const s = socket as DeferringSocket;
  s[QUEUED] = false;
  s.uncork = deferredUncork;
}

/**
 * A TLS server's 'secureConnection' listener: as `flushPerTurn` for a socket that negotiated
 * HTTP/1.1 (or nothing). An HTTP/2 session's socket is left alone: node's session writes frames of
 * all its streams on its own schedule, and a deferred uncork there would hold every stream's
 * frames, not one response.
 */
export function flushPerTurnUnlessHttp2(socket: TLSSocket): void {
  if (socket.alpnProtocol !== 'h2') flushPerTurn(socket);
}
