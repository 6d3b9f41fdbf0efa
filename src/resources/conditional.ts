/**
 * @module resources/conditional
 * Conditional requests (RFC 9110 §13): the precondition order of §13.2.2.
 */
import { parseEtagList, strongMatch, weakMatch } from '../http/etag-list.js';
import { parseHttpDate } from '../http/http-date.js';

export { parseEtagList, strongMatch, weakMatch };

export interface Validators {
  /** Strong entity-tag of the selected representation, quoted: `"abc-x"`. */
  etag: string;
  lastModified: Date;
}

export type PreconditionOutcome = 'proceed' | 'not-modified' | 'failed';

/**
 * Evaluates preconditions in the order of RFC 9110 §13.2.2 for a resource that exists
 * (`current` defined) or not. `matches` decides whether an If-Match tag names the current state
 * (a resource may accept the tag of any of its representations).
 */
export function evaluatePreconditions(
  method: string,
  headers: { 'if-match'?: string; 'if-none-match'?: string; 'if-modified-since'?: string; 'if-unmodified-since'?: string },
  current: Validators | undefined,
  matches: (tags: readonly string[]) => boolean = (tags) => current !== undefined && strongMatch(tags, current.etag),
): PreconditionOutcome {
  const safe = method === 'GET' || method === 'HEAD';
  const ifMatch = parseEtagList(headers['if-match']);
  if (ifMatch !== undefined) {
    // §13.1.1: '*' is false when there is no current representation.
    if (ifMatch === '*' ? current === undefined : !matches(ifMatch)) return 'failed';
  } else if (current !== undefined) {
    // §13.1.4: a value that is not a valid HTTP-date is ignored.
    const since = parseHttpDate(headers['if-unmodified-since']);
    if (since !== undefined && Math.floor(current.lastModified.getTime() / 1000) * 1000 > since) return 'failed';
  }
  const ifNoneMatch = parseEtagList(headers['if-none-match']);
  if (ifNoneMatch !== undefined) {
    const hit = ifNoneMatch === '*' ? current !== undefined : current !== undefined && weakMatch(ifNoneMatch, current.etag);
    if (hit) return safe ? 'not-modified' : 'failed';
  } else if (safe && current !== undefined) {
    // §13.1.3: likewise for If-Modified-Since.
    const since = parseHttpDate(headers['if-modified-since']);
    if (since !== undefined && Math.floor(current.lastModified.getTime() / 1000) * 1000 <= since) return 'not-modified';
  }
  return 'proceed';
}
