/**
 * @module http/unread-body
 * A response sent before its request's body has arrived decides whether the connection survives.
 * node keeps it by draining the rest of the body once the response is done, so a refused 1 GiB
 * upload (a 413, a 401 before the body was read) would still be read in full. Draining is bounded:
 * at most the bound is read after the response, then the connection is cut. The connection is not
 * closed at once: a client still sending the body would get a reset that can destroy the response
 * it has not read yet (the "lingering close" of RFC 9112 §9.6), which is how a gateway in front
 * lost a 413 and answered 502.
 */
import type { ServerResponse } from 'node:http';
import { DRAIN_BOUND, type Request } from './request.js';

/** The most unread body bytes drained to keep a connection open after an early response. */
export const DEFAULT_MAX_DRAIN_BYTES = 64 * 1024;

/** Checks a `maxDrainBytes` setting when the app is created (a bad bound is a configuration error). */
export function checkMaxDrainBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_DRAIN_BYTES;
  if (!Number.isSafeInteger(value) || value < 0) throw new TypeError(`roa: maxDrainBytes must be a non-negative integer, got ${value}`);
  return value;
}

/**
 * Called as a request is dispatched: once the body is left unread (the response is done, or a reader
 * refused it), at most `maxDrain` more bytes are read before the connection is cut (`drainUnread` in
 * http/request). A body that has fully arrived, or none, costs nothing.
 */
export function closeUnlessRead(req: Request, _res: ServerResponse, maxDrain: number): void {
  if (req.complete) return;
  if (req.headers['transfer-encoding'] === undefined) {
    const cl = req.headers['content-length'];
    if (cl === undefined || Number(cl) <= maxDrain) return;
  }
  req[DRAIN_BOUND] = maxDrain;
}
