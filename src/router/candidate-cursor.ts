/**
 * @module router/candidate-cursor
 * Where a router's dispatch stands in the list of layers the index (router/matcher) says may match
 * the request: hands them out in stack order, and looks the rest up again when a layer rewrites
 * `req.url` or `req.method`.
 */
import type { Accept, Candidate, Matcher } from './matcher.js';

const NO_CANDIDATES: readonly Candidate[] = [];

/** One request's position in one router's candidates (created once per `handle`). */
export class CandidateCursor {
  /** The request path the candidates were looked up for. */
  path: string;
  /** The method the index narrowed the candidates to; undefined: not narrowed. */
  private filtered: string | undefined;
  private candidates: readonly Candidate[];
  /**
   * False while `candidates` is only a prefix: the first-route search's one route (the rest is
   * needed only if it calls `next()`), or nothing yet after a rewrite.
   */
  private complete: boolean;
  private at: number;
  /** Stack index of the last candidate handed out: a fresh lookup resumes after it. */
  private lastIndex: number;
  private readonly matcher: Matcher;
  private readonly accepts: Accept;

  constructor(matcher: Matcher, accepts: Accept, path: string, method: string) {
    this.matcher = matcher;
    this.accepts = accepts;
    this.path = path;
    const filtered = filterFor(method, path);
    this.filtered = filtered;
    const candidates = (filtered === undefined ? undefined : matcher.firstIndexed(path, filtered)) ?? matcher.lookup(path, filtered, accepts);
    this.candidates = candidates;
    this.complete = candidates.length !== 1 || candidates[0]!.params === undefined;
    this.at = 0;
    this.lastIndex = -1;
  }

  /**
   * Follows a layer's rewrite of the request: when the path or the method the candidates were
   * narrowed to changed, the layers after the last one tried are looked up again for the new
   * request (Express matches every later layer against the changed request).
   */
  follow(path: string, method: string): void {
    if (path === this.path && (this.filtered === undefined || method === this.filtered)) return;
    this.path = path;
    this.candidates = NO_CANDIDATES;
    this.complete = false;
    this.at = 0;
  }

  /** The next layer that may match, in stack order; undefined when none is left. */
  take(method: string): Candidate | undefined {
    let candidates = this.candidates;
    if (this.at === candidates.length) {
      if (this.complete) return undefined;
      candidates = this.lookupRest(method);
      if (candidates.length === 0) return undefined;
    }
    const candidate = candidates[this.at++]!;
    this.lastIndex = candidate.index;
    return candidate;
  }

  /** Replaces a prefix by the full list from a fresh lookup, without the layers already tried. */
  private lookupRest(method: string): readonly Candidate[] {
    const filtered = filterFor(method, this.path);
    this.filtered = filtered;
    this.candidates = after(this.matcher.lookup(this.path, filtered, this.accepts), this.lastIndex);
    this.complete = true;
    this.at = 0;
    return this.candidates;
  }
}

/**
 * The method the index may filter routes by, or undefined: not for OPTIONS (every route's
 * methods feed `Allow`) nor for paths with `%` (a skipped route's malformed escape still errs).
 */
function filterFor(method: string, path: string): string | undefined {
  return method === 'OPTIONS' || path.indexOf('%') !== -1 ? undefined : method;
}

/** The candidates of a fresh lookup that come after the layer at `lastIndex`. */
function after(candidates: readonly Candidate[], lastIndex: number): readonly Candidate[] {
  let i = 0;
  while (i < candidates.length && candidates[i]!.index <= lastIndex) i++;
  return i === 0 ? candidates : candidates.slice(i);
}
