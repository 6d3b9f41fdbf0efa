/**
 * @module gateway/variant-set
 * The responses stored under one cache key, found by their Vary values in one Map look-up (RFC 9111 §4.1).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { StoredResponse, Variants } from './cache-store.js';

/**
 * Node refuses CR, LF and NUL in field values and names, so these separators and the "absent"
 * marker cannot be confused with a value: every distinct tuple of values gets a distinct key.
 */
const GROUP_END = '\r';
const VALUE_SEP = '\n';
const ABSENT = '\0';

/** The prefix shared by all variants with these (sorted, lower-case) Vary names. */
function groupPrefix(names: readonly string[] | undefined): string {
  return names === undefined ? GROUP_END : names.join(',') + GROUP_END;
}

function valueOf(v: string | string[] | undefined): string {
  return v === undefined ? ABSENT : Array.isArray(v) ? v.join(', ') : v;
}

/** The secondary key of a stored response: its Vary names and the request values it was selected by. */
export function variantKey(names: readonly string[] | undefined, values: readonly (string | undefined)[]): string {
  if (names === undefined) return GROUP_END;
  let key = groupPrefix(names);
  for (let i = 0; i < values.length; i++) key += (i === 0 ? '' : VALUE_SEP) + valueOf(values[i]);
  return key;
}

function requestKey(prefix: string, names: readonly string[] | undefined, headers: IncomingHttpHeaders): string {
  if (names === undefined) return prefix;
  let key = prefix;
  for (let i = 0; i < names.length; i++) key += (i === 0 ? '' : VALUE_SEP) + valueOf(headers[names[i]!]);
  return key;
}

interface Group {
  names: string[] | undefined;
  prefix: string;
  count: number;
}

/**
 * Variants keyed by {@link variantKey} in a Map whose order is recency (a selected variant moves to
 * the end), so the cap drops the least recently used. Responses that disagree on Vary form groups,
 * one look-up each; the cap bounds their number too.
 */
export class VariantSet implements Variants {
  only: StoredResponse | undefined;
  readonly #byKey = new Map<string, StoredResponse>();
  readonly #groups = new Map<string, Group>();
  #last: StoredResponse | undefined;

  get size(): number {
    return this.#byKey.size;
  }

  values(): IterableIterator<StoredResponse> {
    return this.#byKey.values();
  }

  select(headers: IncomingHttpHeaders): StoredResponse | undefined {
    if (this.only !== undefined) return this.only;
    let best: StoredResponse | undefined;
    for (const g of this.#groups.values()) {
      const v = this.#byKey.get(requestKey(g.prefix, g.names, headers));
      // RFC 9111 §4.1: of several matching responses, the most recent one.
      if (v !== undefined && (best === undefined || v.responseTime >= best.responseTime)) best = v;
    }
    if (best !== undefined && best !== this.#last) {
      this.#byKey.delete(best.variantKey);
      this.#byKey.set(best.variantKey, best);
      this.#last = best;
    }
    return best;
  }

  /** Adds `res`; returns the responses it displaced: the one with the same key, then the least recent beyond `max`. */
  add(res: StoredResponse, max: number): StoredResponse[] {
    const displaced: StoredResponse[] = [];
    const same = this.#byKey.get(res.variantKey);
    if (same !== undefined) {
      this.remove(same);
      displaced.push(same);
    }
    this.#byKey.set(res.variantKey, res);
    this.#last = res;
    const prefix = groupPrefix(res.varyNames);
    const group = this.#groups.get(prefix);
    if (group === undefined) this.#groups.set(prefix, { names: res.varyNames, prefix, count: 1 });
    else group.count++;
    while (this.#byKey.size > max) {
      const oldest = this.#byKey.values().next().value as StoredResponse;
      this.remove(oldest);
      displaced.push(oldest);
    }
    this.#settle();
    return displaced;
  }

  /** Removes `res` if it is stored here; returns whether it was. */
  remove(res: StoredResponse): boolean {
    if (this.#byKey.get(res.variantKey) !== res) return false;
    this.#byKey.delete(res.variantKey);
    if (this.#last === res) this.#last = undefined;
    const prefix = groupPrefix(res.varyNames);
    const group = this.#groups.get(prefix)!;
    if (--group.count === 0) this.#groups.delete(prefix);
    this.#settle();
    return true;
  }

  /** The hit path's shortcut: one stored response without Vary is selected without reading any field. */
  #settle(): void {
    const first = this.#byKey.size === 1 ? (this.#byKey.values().next().value as StoredResponse) : undefined;
    this.only = first !== undefined && first.varyNames === undefined ? first : undefined;
  }
}
