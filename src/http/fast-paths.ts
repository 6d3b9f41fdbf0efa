/**
 * @module http/fast-paths
 * The switch for every speed trick that depends on Node's private behaviour. Each trick is
 * feature-detected at start-up next to its code (`incomingMessage`: http/fast-request, `outHeaders`:
 * http/response, `turnFlush`: http/turn-flush); a trick runs only when it is both wanted and
 * detected, else the plain public-API path beside it does the job.
 *
 * `createApp({ fastPaths: false })` (or `ROA_FAST_PATHS=0` in the environment) turns all of them off.
 * For measuring one trick at a time, `ROA_FAST_PATHS=-turnFlush,-outHeaders` turns off the named ones
 * and keeps the rest; the same shape works as an object: `{ turnFlush: false }`.
 */

import { incomingMessageDetected } from './fast-request.js';
import { outHeadersDetected } from './response.js';
import { turnFlushDetected } from './turn-flush.js';

/** The tricks, by name. */
export const FAST_PATH_NAMES = ['incomingMessage', 'outHeaders', 'turnFlush'] as const;
export type FastPathName = (typeof FAST_PATH_NAMES)[number];

/** Which tricks are wanted: all (true), none (false), or each named one (missing = on). */
export type FastPathsOption = boolean | Partial<Record<FastPathName, boolean>>;
export type FastPaths = Readonly<Record<FastPathName, boolean>>;

/**
 * The tricks wanted, from an explicit option or else from `ROA_FAST_PATHS`.
 * @throws Error on a value of ROA_FAST_PATHS or a name that is not understood (configuration errors
 *   fail at start-up, not per request).
 */
export function resolveFastPaths(option?: FastPathsOption, env: NodeJS.ProcessEnv = process.env): FastPaths {
  const chosen = option ?? fromEnv(env.ROA_FAST_PATHS);
  if (typeof chosen === 'boolean') return all(chosen);
  const out = { ...all(true) };
  for (const [name, on] of Object.entries(chosen)) {
    if (!(FAST_PATH_NAMES as readonly string[]).includes(name)) throw new Error(`fastPaths: unknown fast path "${name}" (known: ${FAST_PATH_NAMES.join(', ')})`);
    out[name as FastPathName] = on !== false;
  }
  return out;
}

function all(on: boolean): Record<FastPathName, boolean> {
  return { incomingMessage: on, outHeaders: on, turnFlush: on };
}

function fromEnv(value: string | undefined): FastPathsOption {
  if (value === undefined || value === '' || value === '1' || value === 'on' || value === 'true') return true;
  if (value === '0' || value === 'off' || value === 'false') return false;
  const off: Partial<Record<FastPathName, boolean>> = {};
  for (const item of value.split(',')) {
    const name = item.trim();
    if (!name.startsWith('-')) throw new Error(`ROA_FAST_PATHS: expected 1, 0 or a list like -turnFlush,-outHeaders; got "${value}"`);
    off[name.slice(1) as FastPathName] = false;
  }
  return off;
}

/** What detection found on this node: each trick whose private dependencies are in place. */
export const DETECTED_FAST_PATHS: FastPaths = Object.freeze({
  incomingMessage: incomingMessageDetected,
  outHeaders: outHeadersDetected,
  turnFlush: turnFlushDetected,
});

/**
 * The tricks that will run: wanted (the option, else `ROA_FAST_PATHS`) and detected.
 * @example
 *   activeFastPaths({ turnFlush: false })  // { incomingMessage: true, outHeaders: true, turnFlush: false } on node 20
 */
export function activeFastPaths(option?: FastPathsOption, env: NodeJS.ProcessEnv = process.env, detected: FastPaths = DETECTED_FAST_PATHS): FastPaths {
  const wanted = resolveFastPaths(option, env);
  return Object.freeze({
    incomingMessage: wanted.incomingMessage && detected.incomingMessage,
    outHeaders: wanted.outHeaders && detected.outHeaders,
    turnFlush: wanted.turnFlush && detected.turnFlush,
  });
}
