/**
 * @module http/unread-body
 * A response sent before its request's body has arrived decides whether the connection survives.
 * node keeps it by draining the rest of the body once the response is done, so a refused 1 GiB
 * upload (a 413, a 401 before the body was read) would still be read in full. Draining is bounded:
 * a declared length over the bound makes the response say `Connection: close` (RFC 9112 §9.6)
 * unless the body has arrived by the time the response starts; a chunked body, whose length is
 * unknown, is drained after the response for at most the bound, then the connection is cut.
 */
import type { ServerResponse } from 'node:http';
import { DRAIN_BOUND, KEEP_ALIVE_WHEN_READ, type Request } from './request.js';

/** The most unread body bytes drained to keep a connection open after an early response. */
export const DEFAULT_MAX_DRAIN_BYTES = 64 * 1024;

/** Checks a `maxDrainBytes` setting when the app is created (a bad bound is a configuration error). */
export function checkMaxDrainBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_DRAIN_BYTES;
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`roa: maxDrainBytes must be a non-negative integer, got ${value}`);
  return value;
}

/**
 * Called as a request is dispatched. A Content-Length over `maxDrain`: the response closes the
 * connection unless the whole body has arrived before it starts (the request's end restores
 * keep-alive, see `Request.push`). Chunked: once the body is left unread (the response is done, or
 * a reader refused it), at most `maxDrain` more bytes are read before the connection is cut
 * (`drainUnread` in http/request).
 */
export function closeUnlessRead(req: Request, res: ServerResponse, maxDrain: number): void {
  const te = req.headers['transfer-encoding'];
  if (te === undefined) {
    const cl = req.headers['content-length'];
    if (cl === undefined || Number(cl) <= maxDrain || req.complete || !res.shouldKeepAlive) return;
    res.shouldKeepAlive = false;
    req[KEEP_ALIVE_WHEN_READ] = res;
    return;
  }
  if (!req.complete) req[DRAIN_BOUND] = maxDrain;
}
