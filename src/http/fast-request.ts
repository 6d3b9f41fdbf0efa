/**
 * @module http/fast-request
 * The `incomingMessage` fast path: a Request that overrides node's private IncomingMessage methods.
 *
 * node's HTTP parser hands each body chunk to `push`, calls `_dump` once the response has finished
 * to drain an unread body, and `_destroy` when the request dies; the server waits for 'end' with a
 * listener named `clearIncoming`. None of that is documented, so the class is used only when
 * `incomingMessageDetected` found those methods in place (http/fast-paths decides), and the whole
 * test suite also runs with it off (`ROA_FAST_PATHS=0`), where http/request's public-API Request
 * does the same jobs: the body comes through the stream's events, node drains it as usual, and
 * `drainWhenAnswered` bounds that drain.
 */
import { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { BODY_ABORTED, BODY_SINK, countDrained, DRAIN_BOUND, DRAIN_LEFT, drainUnread, Request } from './request.js';

/** Set when `_dump` found nothing to drain and nobody to tell: the stream's ending waits for a listener. */
const END_DEFERRED = Symbol('roa.endDeferred');

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- EventEmitter's own listener type, which these overrides must match
type Listener = (...args: any[]) => void;

const nodeDump = (IncomingMessage.prototype as unknown as { _dump?: (this: IncomingMessage) => void })._dump;

/**
 * Whether node's IncomingMessage has what FastRequest overrides and relies on: `_dump` and
 * `_destroy` methods, `push` inherited from Readable (the parser's entry), and the `_dumped` flag
 * the parser checks before pushing. A node release that changes these loses only the speed.
 */
export function detectIncomingMessage(proto: object = IncomingMessage.prototype, probe: object = new IncomingMessage(null as unknown as Socket)): boolean {
  const p = proto as Record<string, unknown>;
  return typeof p._dump === 'function' && typeof p._destroy === 'function' && typeof p.push === 'function' && (probe as { _dumped?: unknown })._dumped === false;
}

export const incomingMessageDetected = detectIncomingMessage();

export class FastRequest extends Request {
  declare [END_DEFERRED]: boolean;
  declare _dumped: boolean;

  constructor(socket: Socket) {
    super(socket);
    FastRequest.initFields(this);
  }

  static override initFields(req: Request): void {
    const r = req as FastRequest;
    r[BODY_SINK] = undefined;
    r[END_DEFERRED] = false;
  }

  /**
   * With a sink installed (http/body, when nothing is buffered or listening yet) the parser's chunks
   * go to it directly instead of through the stream's buffer, flowing mode, nextTicks and
   * 'data'/'end' events: for a small JSON body that machinery costs more than parsing it. The
   * stream still ends, so node's own bookkeeping (draining, 'close') runs as usual.
   */
  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk !== null && this[DRAIN_LEFT] !== undefined && !countDrained(this, chunk as Buffer)) return false;
    const sink = this[BODY_SINK];
    if (sink === undefined) return super.push(chunk, encoding);
    if (chunk === null) {
      this[BODY_SINK] = undefined;
      super.push(null);
      sink(null);
      return true;
    }
    sink(chunk as Buffer);
    return true;
  }

  /** A request destroyed before its body completed (client gone, socket error) tells the sink. */
  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    const sink = this[BODY_SINK];
    if (sink !== undefined) {
      this[BODY_SINK] = undefined;
      sink(BODY_ABORTED);
    }
    super._destroy(err, callback);
  }

  /**
   * node's own `_dump` resumes the stream, which after two ticks emits 'end', destroys itself and
   * emits 'close'. When the parser has already delivered the whole message, nothing is buffered and
   * nobody listens for 'end' or 'close', all of that informs no one, yet it costs a noticeable share
   * of a small request's CPU. Then the ending is deferred until someone asks for it (see `on`), or
   * the request is dropped.
   */
  _dump(): void {
    if (!this._dumped && this.complete && this.readableLength === 0 && this.listenerCount('end') === 0 && this.listenerCount('close') === 0) {
      this._dumped = true;
      this[END_DEFERRED] = true;
      return;
    }
    // node's own dump makes the parser drop the chunks before `push`, where a bound is counted.
    if (this[DRAIN_BOUND] !== undefined && !this.complete) {
      this.removeAllListeners('data');
      drainUnread(this);
      return;
    }
    nodeDump!.call(this);
  }

  /** A late 'end' or 'close' listener gets what node would have emitted: the deferred ending runs now. */
  override on(event: string | symbol, listener: Listener): this {
    super.on(event, listener);
    if (this[END_DEFERRED]) this.endWhenAsked(event, listener);
    return this;
  }

  override addListener(event: string | symbol, listener: Listener): this {
    return this.on(event, listener);
  }

  override prependListener(event: string | symbol, listener: Listener): this {
    super.prependListener(event, listener);
    if (this[END_DEFERRED]) this.endWhenAsked(event, listener);
    return this;
  }

  private endWhenAsked(event: string | symbol, listener: Listener): void {
    // node's own clearIncoming waits for 'end' only to release the parser's reference, which the
    // next request on the connection replaces anyway; it does not count as someone asking. Should
    // node rename it, the ending simply runs at once, as without this class.
    if ((event !== 'end' && event !== 'close') || listener.name === 'clearIncoming') return;
    this[END_DEFERRED] = false;
    this.resume();
  }
}
