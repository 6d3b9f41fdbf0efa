/**
 * @module http/etag-list
 * If-Match / If-None-Match lists of entity-tags and their comparisons (RFC 9110 §8.8.3, §13.1.1-2),
 * shared by the service's preconditions and the gateway's hits.
 */

// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text (§8.8.3). An
// opaque-tag may hold a comma, so a list cannot be split on commas.
const ENTITY_TAG = /(?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*"/y;

/**
 * The tags of an If-Match / If-None-Match value (`*` stays `*`; weak tags keep their `W/`), or
 * undefined when the field is absent. A malformed field gives an empty list, which matches
 * nothing: If-Match then fails and If-None-Match is never met, the safe reading of each.
 * @example
 *   parseEtagList('"a,b", W/"c"'); // ['"a,b"', 'W/"c"']
 */
export function parseEtagList(header: string | undefined): string[] | '*' | undefined {
  if (header === undefined) return undefined;
  const tags: string[] = [];
  const n = header.length;
  let i = skip(header, 0, true);
  if (header[i] === '*' && skip(header, i + 1, false) === n) return '*';
  while (i < n) {
    ENTITY_TAG.lastIndex = i;
    const m = ENTITY_TAG.exec(header);
    if (m === null) return [];
    tags.push(m[0]);
    i = skip(header, ENTITY_TAG.lastIndex, false);
    if (i < n && header[i] !== ',') return [];
    // §5.6.1: recipients accept empty list elements (`"a", , "b"`).
    i = skip(header, i, true);
  }
  return tags;
}

/** Index of the first character after optional whitespace (and commas when `commas`). */
function skip(s: string, i: number, commas: boolean): number {
  while (i < s.length && (s[i] === ' ' || s[i] === '\t' || (commas && s[i] === ','))) i++;
  return i;
}

function opaque(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/** Strong comparison (§8.8.3.2): both strong and identical. */
export function strongMatch(list: readonly string[], etag: string): boolean {
  return !etag.startsWith('W/') && list.some((t) => t === etag);
}

/** Weak comparison of two tags (§8.8.3.2): their opaque tags are identical. */
export function weakEqual(a: string, b: string): boolean {
  return opaque(a) === opaque(b);
}

/** Weak comparison (§8.8.3.2) against each tag of a list. */
export function weakMatch(list: readonly string[], etag: string): boolean {
  return list.some((t) => weakEqual(t, etag));
}
