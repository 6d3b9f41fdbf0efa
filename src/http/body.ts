/**
 * @module http/body
 * Reads a request body once, bounded in size and time. Every parser and the HMAC scheme share the
 * bytes through `req.rawBody`, so the stream is consumed exactly once.
 */
import { HttpError } from '../errors/http-error.js';
import type { Request } from './request.js';

export interface ReadBodyOptions {
  /** Largest body accepted, in bytes (default 100 KiB). */
  limit?: number;
  /** Longest time to receive the body, in ms (default 30 s) → 408. */
  timeoutMs?: number;
}

export const DEFAULT_BODY_LIMIT = 100 * 1024;

/** `100kb`, `1mb`, `512` → bytes. */
export function parseByteLimit(value: number | string): number {
  if (typeof value === 'number') return value;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value);
  if (!m) throw new TypeError(`roa: invalid byte limit '${value}'`);
  const unit = (m[2] ?? 'b').toLowerCase();
  const scale = unit === 'gb' ? 1024 ** 3 : unit === 'mb' ? 1024 ** 2 : unit === 'kb' ? 1024 : 1;
  return Math.floor(Number(m[1]) * scale);
}

/** Reads (or returns the cached) raw body. 413 over the limit, 400 when aborted or short, 415 when encoded. */
export function readRawBody(req: Request, options: ReadBodyOptions = {}): Promise<Buffer> {
  if (req.rawBody !== undefined) return Promise.resolve(req.rawBody);
  const limit = options.limit ?? DEFAULT_BODY_LIMIT;
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    // Bodies are not inflated: a compressed body could expand far past the limit.
    return Promise.reject(new HttpError(415, `Unsupported Content-Encoding ${encoding}`, { code: 'ROA_ERR_UNSUPPORTED_ENCODING' }));
  }
  const declared = req.headers['content-length'];
  const expected = declared === undefined ? undefined : Number(declared);
  if (expected !== undefined && expected > limit) {
    return Promise.reject(tooLarge(limit));
  }
  if (expected === 0 || (expected === undefined && req.headers['transfer-encoding'] === undefined)) {
    req.rawBody = Buffer.alloc(0);
    return Promise.resolve(req.rawBody);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let finished = false;
    const timer = setTimeout(() => fail(new HttpError(408, 'The request body took too long to arrive', { code: 'ROA_ERR_BODY_TIMEOUT' })), options.timeoutMs ?? 30_000);
    const cleanup = (): void => {
      finished = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('error', onError);
    };
    const fail = (err: HttpError): void => {
      if (finished) return;
      cleanup();
      // Stop buffering; drain the rest so the response can still be written.
      req.resume();
      reject(err);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) fail(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = (): void => {
      if (finished) return;
      if (expected !== undefined && received !== expected) {
        fail(new HttpError(400, 'The body is shorter than its Content-Length', { code: 'ROA_ERR_BODY_LENGTH' }));
        return;
      }
      cleanup();
      req.rawBody = Buffer.concat(chunks, received);
      resolve(req.rawBody);
    };
    const onAborted = (): void => fail(new HttpError(400, 'The request was aborted', { code: 'ROA_ERR_REQUEST_ABORTED' }));
    const onError = (): void => fail(new HttpError(400, 'The request body could not be read', { code: 'ROA_ERR_REQUEST_ABORTED' }));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('error', onError);
  });
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `The body exceeds the limit of ${limit} bytes`, { code: 'ROA_ERR_BODY_TOO_LARGE', extensions: { limit } });
}

/** The charset parameter of a Content-Type (lower-cased), or undefined. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return m?.[1]?.toLowerCase();
}

/** Text bodies are read as UTF-8; anything else is refused (415) rather than misread. */
export function assertUtf8(contentType: string | undefined): void {
  const charset = charsetOf(contentType);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' && charset !== 'us-ascii') {
    throw new HttpError(415, `Unsupported charset ${charset}; use utf-8`, { code: 'ROA_ERR_UNSUPPORTED_CHARSET' });
  }
}
