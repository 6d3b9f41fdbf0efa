/** @module resources/purge-send — one PURGE request over an undici dispatcher, with a time-out, answering its status. */
import type { Dispatcher } from 'undici';

/** A request in flight: `abort` ends it (its promise then rejects with `reason`). */
export interface InFlight {
  abort(reason: Error): void;
}

/**
 * Sends `PURGE path` and resolves with the status once the (discarded) body has ended; rejects on
 * a network error, on `abort` or after `timeoutMs`. Uses `dispatch` rather than `request`: a purge
 * reads no body, and skipping the body stream and its promise chain roughly halves the client-side
 * cost of each PURGE.
 */
export function sendPurge(
  dispatcher: Dispatcher,
  path: string,
  headers: Record<string, string>,
  timeoutMs: number,
  track: (inFlight: InFlight | undefined) => void,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    let early: Error | undefined;
    let status = 0;
    const abort = (reason: Error): void => {
      if (controller !== undefined) controller.abort(reason);
      else early = reason;
    };
    const timer = setTimeout(() => abort(new Error(`timeout after ${timeoutMs} ms`)), timeoutMs);
    const settle = (): void => {
      clearTimeout(timer);
      track(undefined);
    };
    track({ abort });
    dispatcher.dispatch({ method: 'PURGE', path, headers }, {
      onRequestStart(c) {
        controller = c;
        if (early !== undefined) c.abort(early);
      },
      onResponseStart(_c, statusCode) {
        status = statusCode;
      },
      onResponseData() {},
      onResponseEnd() {
        settle();
        resolve(status);
      },
      onResponseError(_c, err) {
        settle();
        reject(err);
      },
    });
  });
}
