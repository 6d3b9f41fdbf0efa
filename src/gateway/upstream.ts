/**
 * @module gateway/upstream
 * One kept-alive connection pool to the origin; forwards a request and reports interim responses.
 */
import { Agent, request, type IncomingMessage, type InformationEvent } from 'node:http';
import { finished, type Readable } from 'node:stream';

/** Raised when the origin cannot be reached (502) or is too slow (504). */
export class UpstreamError extends Error {
  constructor(readonly kind: 'unreachable' | 'timeout', message: string) {
    super(message);
    this.name = 'UpstreamError';
  }
}

export interface UpstreamCall {
  method: string;
  /** The request target exactly as the client sent it (never re-encoded: HMAC signs it). */
  path: string;
  /** Flat [name, value, …] array. */
  headers: string[];
  /**
   * Request body to stream, or undefined for none. `headers` must carry its framing
   * (gateway/request-framing): node writes a DELETE, OPTIONS or TRACE body bare otherwise, for the
   * origin to read as the next request.
   */
  body: Readable | undefined;
  onInformation?: (info: InformationEvent) => void;
}

/** A pool bound to one origin. */
export class Upstream {
  readonly #agent: Agent;
  readonly #host: string;
  readonly #port: number;
  readonly #timeoutMs: number;

  constructor(base: string, timeoutMs: number, localAddress?: string) {
    const url = new URL(base);
    if (url.protocol !== 'http:') throw new TypeError(`gateway upstream must be an http: URL, got ${base}`);
    this.#host = url.hostname.replace(/^\[|\]$/g, '');
    this.#port = url.port === '' ? 80 : Number(url.port);
    this.#timeoutMs = timeoutMs;
    this.#agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64, scheduling: 'lifo', ...(localAddress !== undefined ? { localAddress } : {}) });
  }

  /** Resolves with the final response (1xx go to `onInformation`); rejects with UpstreamError. */
  send(call: UpstreamCall): Promise<IncomingMessage> {
    if (call.body !== undefined && !framed(call.headers)) throw new TypeError('gateway: a request body needs Content-Length or Transfer-Encoding');
    return new Promise((resolve, reject) => {
      const req = request({
        host: this.#host,
        port: this.#port,
        method: call.method,
        path: call.path,
        headers: call.headers,
        agent: this.#agent,
        setHost: false,
      });
      let settled = false;
      const fail = (err: UpstreamError): void => {
        if (!settled) {
          settled = true;
          reject(err);
        }
        req.destroy(err);
      };
      // Socket idle timeout: covers connect, waiting for the head, and stalls in the body. While the
      // client's own body is still arriving, the silence is the client's: the origin gets one more
      // period to answer it itself (its body time-out, 408), rather than the client getting our 504.
      let graceLeft = call.body !== undefined;
      const onIdle = (): void => {
        if (graceLeft && !req.writableFinished) {
          graceLeft = false;
          req.setTimeout(this.#timeoutMs, onIdle);
          return;
        }
        fail(new UpstreamError('timeout', `origin did not answer within ${this.#timeoutMs} ms`));
      };
      req.setTimeout(this.#timeoutMs, onIdle);
      req.on('error', (err) => {
        if (!settled) {
          settled = true;
          reject(err instanceof UpstreamError ? err : new UpstreamError('unreachable', err.message));
        }
      });
      if (call.onInformation !== undefined) req.on('information', call.onInformation);
      req.on('response', (res) => {
        settled = true;
        resolve(res);
      });
      if (call.body === undefined) {
        req.end();
        return;
      }
      call.body.pipe(req);
      // A body cut short (the client went away) leaves the request unfinishable: drop it with its
      // connection, which could otherwise go back to the pool owing the origin the missing bytes.
      finished(call.body, (err) => {
        if (err) req.destroy();
      });
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

/** Whether a flat field list says how its body is framed (RFC 9112 §6.3). */
function framed(headers: readonly string[]): boolean {
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]!.toLowerCase();
    if (name === 'content-length' || name === 'transfer-encoding') return true;
  }
  return false;
}
