/**
 * @module http/body
 * Reads a request body once, bounded in size and time. Every parser and the HMAC scheme share the
 * bytes through `req.rawBody`, so the stream is consumed exactly once.
 */
import { isUtf8 } from 'node:buffer';
import { brotliDecompress, gunzip, inflate, type BrotliOptions, type ZlibOptions } from 'node:zlib';
import { HttpError } from '../errors/http-error.js';
import { BODY_ABORTED, BODY_SINK, continueIfAwaited, drainUnread, type BodySink, type Request } from './request.js';
import { contentCodingOf, type ContentCoding } from './content-codings.js';

export interface ReadBodyOptions {
  /** Largest body accepted, in bytes or as `100kb` (default 100 KiB) → 413. */
  limit?: number | string;
  /** Longest time to receive the whole body, in ms (default 30 s) → 408. */
  timeoutMs?: number;
}

export const DEFAULT_BODY_LIMIT = 100 * 1024;
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/**
 * `100kb`, `1mb`, `512`, `512b` → bytes (binary units, as body-parser's `bytes`). Throws a
 * TypeError for anything else, so a bad limit fails when the middleware is created.
 * @example
 *   parseByteLimit('100kb') // 102400
 */
export function parseByteLimit(value: number | string): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new TypeError(`roa: invalid byte limit ${value}`);
    return Math.floor(value);
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
  if (!m) throw new TypeError(`roa: invalid byte limit '${value}' (use a number or e.g. '100kb', '1mb')`);
  return Math.floor(Number(m[1]) * UNITS[(m[2] ?? 'b').toLowerCase()]!);
}

/** True when the request has a body to read (RFC 9112 §6.3: Transfer-Encoding or Content-Length). */
export function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined) return true;
  // HTTP/2 frames a body in DATA frames and needs neither field (RFC 9113 §8.1): the stream says
  // whether one follows (END_STREAM on the headers or not).
  const stream = (req as { stream?: { endAfterHeaders?: boolean } }).stream;
  return stream !== undefined && stream.endAfterHeaders === false;
}

// Concurrent readers (a parser and the HMAC scheme, say) share one read rather than racing for chunks.
const PENDING = Symbol('roa.pendingBody');
type WithPending = Request & { [PENDING]?: BodyCallback[] | undefined };

/**
 * Body time-outs: one shared, unref'd sweep instead of a timer per request (a timer per body is
 * measurable on the hot path). A read is failed at most SWEEP_MS after its deadline. Open reads sit
 * in an array, each knowing its slot, so registering is a push and settling a swap with the last:
 * no Map (its object keys cost an identity hash each) and nothing kept alive past its read.
 */
const SWEEP_MS = 250;

interface Deadline {
  at: number;
  expire: () => void;
  /** Slot in `open`, -1 once settled. */
  slot: number;
}

const open: Deadline[] = [];
let sweeper: NodeJS.Timeout | undefined;

function watch(timeoutMs: number, expire: () => void): Deadline {
  const deadline: Deadline = { at: Date.now() + timeoutMs, expire, slot: open.length };
  open.push(deadline);
  if (sweeper === undefined) {
    sweeper = setInterval(sweep, Math.min(SWEEP_MS, timeoutMs));
    sweeper.unref();
  }
  return deadline;
}

function settle(deadline: Deadline): void {
  const slot = deadline.slot;
  if (slot < 0) return;
  deadline.slot = -1;
  const last = open.pop()!;
  if (last !== deadline) {
    open[slot] = last;
    last.slot = slot;
  }
}

function sweep(): void {
  const now = Date.now();
  // Backwards: a settle moves the last entry, already visited, into the freed slot.
  for (let i = open.length - 1; i >= 0; i--) {
    const d = open[i];
    if (d !== undefined && d.at <= now) {
      settle(d);
      d.expire();
    }
  }
  if (open.length === 0) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/**
 * Reads the whole body (or returns the bytes already read, from `req.rawBody`).
 * Rejects with an HttpError: 413 over the limit (checked on Content-Length before reading and
 * while streaming), 400 when the client aborts or sends fewer bytes than declared, 408 when the
 * body is too slow, 415 for a Content-Encoding other than gzip, deflate, br or identity (coded bodies
 * are decoded, their decoded size bounded by the same limit; corrupt data → 400).
 * @example
 *   const bytes = await readRawBody(req, { limit: '1mb' })
 */
export function readRawBody(req: Request, options: ReadBodyOptions = {}): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    readBody(req, options, (err, body) => (err === undefined ? resolve(body!) : reject(err)));
  });
}

/** Called once with the error, or with the body. */
export type BodyCallback = (err: unknown, body?: Buffer) => void;

/**
 * readRawBody without a promise, for the parsers on the hot path: the callback runs once, possibly
 * synchronously (cached or empty body). Concurrent readers share one read.
 */
export function readBody(req: Request, options: ReadBodyOptions, callback: BodyCallback): void {
  let limit: number;
  try {
    limit = parseByteLimit(options.limit ?? DEFAULT_BODY_LIMIT);
  } catch (err) {
    callback(err);
    return;
  }
  // A body read before, or being read, under someone else's limit (an auth scheme checking a
  // digest, say): ours still holds.
  if (req.rawBody !== undefined) {
    withinLimit(limit, callback)(undefined, req.rawBody);
    return;
  }
  const r = req as WithPending;
  const waiting = r[PENDING];
  if (waiting !== undefined) {
    waiting.push(withinLimit(limit, callback));
    return;
  }
  const waiters = [callback];
  r[PENDING] = waiters;
  const finish: BodyCallback = (err, body) => {
    r[PENDING] = undefined;
    for (const w of waiters) w(err, body);
  };
  try {
    startRead(req, limit, options.timeoutMs ?? DEFAULT_BODY_TIMEOUT_MS, finish);
  } catch (err) {
    finish(err);
  }
}

/** `callback`, refusing with 413 a body longer than `limit`. */
function withinLimit(limit: number, callback: BodyCallback): BodyCallback {
  return (err, body) => (err === undefined && body!.length > limit ? callback(tooLarge(limit)) : callback(err, body));
}

function startRead(req: Request, limit: number, timeoutMs: number, finish: BodyCallback): void {
  const coding = requestCoding(req.headers['content-encoding']);
  const done = coding === undefined ? finish : decodingInto(req, coding, limit, finish);
  const declared = req.headers['content-length'];
  const expected = declared === undefined ? undefined : Number(declared);
  // Refuse before reading a byte: after the response the unread body is drained only up to a bound,
  // past it the connection closes (http/unread-body).
  if (expected !== undefined && expected > limit) throw tooLarge(limit);
  if (expected === 0 || !hasBody(req)) {
    req.rawBody = Buffer.alloc(0);
    done(undefined, req.rawBody);
    return;
  }
  if (req.readableEnded) {
    throw new HttpError(500, 'The request body was already consumed without http/body', { code: 'ROA_ERR_BODY_CONSUMED' });
  }
  // Only now, with the declared length within the limit, is the client asked for the body.
  continueIfAwaited(req);
  if (canTakeFromParser(req)) takeFromParser(req, limit, expected, timeoutMs, done);
  else readWithListeners(req, limit, expected, timeoutMs, done);
}

/**
 * The parser's chunks can go straight to a sink (Request.push) when this is a roa Request whose body
 * has not started to arrive and that nobody else reads: the usual case, since a parser middleware
 * runs while node is still parsing the request. Otherwise (the body is buffered already, after an
 * await in an earlier middleware, say) it is read through the stream's events.
 */
function canTakeFromParser(req: Request): boolean {
  return BODY_SINK in req && req[BODY_SINK] === undefined && !req.complete && req.readableLength === 0 && req.listenerCount('data') === 0;
}

/** Swallows the rest of a body that was refused (too large, too slow): node keeps parsing it off the wire. */
const DISCARD: BodySink = () => {};

function takeFromParser(req: Request, limit: number, expected: number | undefined, timeoutMs: number, done: BodyCallback): void {
  const chunks: Buffer[] = [];
  let received = 0;
  const refuse = (err: HttpError): void => {
    settle(deadline);
    if (req[BODY_SINK] === sink) req[BODY_SINK] = DISCARD;
    done(err);
  };
  const sink: BodySink = (chunk) => {
    if (chunk === null) {
      if (expected !== undefined && received !== expected) {
        refuse(lengthMismatch(received, expected));
        return;
      }
      settle(deadline);
      req.rawBody = joined(chunks, received);
      done(undefined, req.rawBody);
    } else if (chunk === BODY_ABORTED) {
      refuse(aborted());
    } else {
      received += chunk.length;
      if (received > limit) refuse(tooLarge(limit));
      else chunks.push(chunk);
    }
  };
  const deadline = watch(timeoutMs, () => refuse(tooSlow()));
  req[BODY_SINK] = sink;
}

function readWithListeners(req: Request, limit: number, expected: number | undefined, timeoutMs: number, done: BodyCallback): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const deadline = watch(timeoutMs, () => fail(tooSlow(), false));
  const cleanup = (): void => {
    settled = true;
    settle(deadline);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onClose);
  };
  const fail = (err: HttpError, drain: boolean): void => {
    if (settled) return;
    cleanup();
    // Nothing more is buffered. Draining (not storing) the rest keeps the connection usable and
    // lets the client read the answer instead of seeing a reset mid-upload, as finalhandler does;
    // http/unread-body bounds how much.
    if (drain) drainUnread(req);
    else req.pause();
    done(err);
  };
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit) fail(tooLarge(limit), true);
    else chunks.push(chunk);
  };
  const onEnd = (): void => {
    if (settled) return;
    if (expected !== undefined && received !== expected) {
      fail(lengthMismatch(received, expected), false);
      return;
    }
    cleanup();
    req.rawBody = joined(chunks, received);
    done(undefined, req.rawBody);
  };
  const onClose = (): void => {
    if (!req.complete) fail(aborted(), false);
  };
  // 'close' before completion covers an aborted request (the deprecated 'aborted' event is not
  // needed) and a stream error too: node emits 'error' on a request only when someone listens.
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('close', onClose);
}

/** The body from its chunks; a body that came in one chunk is that chunk, not a copy. */
function joined(chunks: Buffer[], length: number): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
}

// The failures both read paths (parser sink, stream events) answer with.
function tooLarge(limit: number): HttpError {
  return new HttpError(413, `The body exceeds the limit of ${limit} bytes`, { code: 'ROA_ERR_BODY_TOO_LARGE', extensions: { limit } });
}

function tooSlow(): HttpError {
  // RFC 9110 §15.5.9: a server sending 408 ought to close the connection.
  return new HttpError(408, 'The request body took too long to arrive', { code: 'ROA_ERR_BODY_TIMEOUT', headers: { Connection: 'close' } });
}

function lengthMismatch(received: number, expected: number): HttpError {
  return new HttpError(400, `The body has ${received} bytes but Content-Length says ${expected}`, { code: 'ROA_ERR_BODY_LENGTH_MISMATCH' });
}

function aborted(): HttpError {
  return new HttpError(400, 'The request was aborted before its body was complete', { code: 'ROA_ERR_REQUEST_ABORTED' });
}

/**
 * A coded body (RFC 9110 §8.4) is read as sent, within the limit, then decoded with the limit on
 * its decoded size too: zlib stops as soon as the output passes `maxOutputLength`, so a small
 * body that inflates without end (a "zip bomb") costs at most `limit` bytes and gets 413. The
 * coded bytes stay on the request ({@link wireBodyOf}); `req.rawBody` holds the decoded content.
 */
function decodingInto(req: Request, coding: ContentCoding, limit: number, finish: BodyCallback): BodyCallback {
  return (err, body) => {
    if (err !== undefined) {
      finish(err);
      return;
    }
    // Until decoded, a concurrent reader waits on the pending read rather than taking coded bytes.
    req.rawBody = undefined;
    (req as WithWire)[WIRE] = body!;
    DECODERS[coding](body!, { maxOutputLength: Math.max(limit, 1) }, (e, decoded) => {
      if (e !== null) {
        finish((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? tooLarge(limit) : corrupt(coding, e));
        return;
      }
      req.rawBody = decoded;
      finish(undefined, decoded);
    });
  };
}

const WIRE = Symbol('roa.wireBody');
type WithWire = Request & { [WIRE]?: Buffer };

/** The body as it came over the wire (still coded) when it had a Content-Encoding; else undefined. */
export function wireBodyOf(req: Request): Buffer | undefined {
  return (req as WithWire)[WIRE];
}

type Decoder = (buf: Buffer, options: ZlibOptions & BrotliOptions, cb: (err: Error | null, result: Buffer) => void) => void;

const DECODERS: Record<ContentCoding, Decoder> = { gzip: gunzip, deflate: inflate, br: brotliDecompress };

/** What a 415 for a request coding names as supported (RFC 9110 §12.5.3). */
export const REQUEST_CODINGS = 'gzip, deflate, br, identity';

function corrupt(coding: string, cause: Error): HttpError {
  return new HttpError(400, `The body is not valid ${coding} data`, { code: 'ROA_ERR_MALFORMED_ENCODING', cause });
}

/**
 * The one coding of a request body, or undefined for none (`identity`). gzip, deflate and br are
 * decoded; anything else, or codings stacked on one another, is refused with 415 and
 * Accept-Encoding naming what works (RFC 9110 §15.5.16).
 */
function requestCoding(header: string | undefined): ContentCoding | undefined {
  if (header === undefined) return undefined;
  let found: ContentCoding | undefined;
  let count = 0;
  for (const item of header.split(',')) {
    const c = item.trim().toLowerCase();
    if (c === '' || c === 'identity') continue;
    count++;
    const known = contentCodingOf(c);
    if (count > 1 || known === undefined) throw unsupportedCoding(count > 1 ? header.trim() : c);
    found = known;
  }
  return found;
}

function unsupportedCoding(coding: string): HttpError {
  return new HttpError(415, `Unsupported Content-Encoding ${coding}; send the body as gzip, deflate, br or uncompressed`, {
    code: 'ROA_ERR_UNSUPPORTED_ENCODING',
    headers: { 'Accept-Encoding': REQUEST_CODINGS },
  });
}

// The Content-Type checks live with the one Content-Type parser.
export { assertUtf8, charsetOf } from './content-type.js';

/**
 * Decodes a body as UTF-8; malformed byte sequences → 400 `ROA_ERR_INVALID_UTF8` (never U+FFFD);
 * a leading BOM is dropped (RFC 8259 §8.1 allows ignoring it).
 */
export function decodeUtf8(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  // Invalid sequences decode to U+FFFD; only then is the (rarer) full validation worth its pass.
  if (text.indexOf('\uFFFD') !== -1 && !isUtf8(bytes)) {
    throw new HttpError(400, 'The body is not valid UTF-8', { code: 'ROA_ERR_INVALID_UTF8' });
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
