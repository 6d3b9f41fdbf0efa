/**
 * @module gateway/variant-set
 * The responses stored under one cache key, found by their Vary values in one Map look-up (RFC 9111 §4.1).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { StoredResponse, Variants } from './cache-store.js';

/**
 * Node refuses LF and NUL in field values, so joining values with LF and writing an absent field
 * as NUL gives every distinct tuple of values a distinct key.
 */
const VALUE_SEP = '\n';
const ABSENT = '\0';

function valueOf(v: string | string[] | undefined): string {
  return v === undefined ? ABSENT : Array.isArray(v) ? v.join(', ') : v;
}

/** The key of a stored response among those with the same Vary names: the request values it was selected by. */
export function variantKey(names: readonly string[] | undefined, values: readonly (string | undefined)[]): string {
  if (names === undefined) return '';
  let key = valueOf(values[0]);
  for (let i = 1; i < values.length; i++) key += VALUE_SEP + valueOf(values[i]);
  return key;
}

/** The same key computed from a request's fields; one Vary name (the usual case) costs no concatenation. */
function requestKey(names: readonly string[] | undefined, headers: IncomingHttpHeaders): string {
  if (names === undefined) return '';
  let key = valueOf(headers[names[0]!]);
  for (let i = 1; i < names.length; i++) key += VALUE_SEP + valueOf(headers[names[i]!]);
  return key;
}

function signature(names: readonly string[] | undefined): string {
  return names === undefined ? '' : names.join(',');
}

interface Slot {
  res: StoredResponse;
  /** Recency stamp: the set's tick when the response was stored or last selected. */
  used: number;
}

interface Group {
  names: string[] | undefined;
  slots: Map<string, Slot>;
}

/**
 * Responses grouped by their Vary names (usually one group), each group a Map from the request
 * values to the response, so selecting is one look-up per group. Past `max` responses the least
 * recently used goes; finding it scans the set, which only happens when a store exceeds the cap.
 */
export class VariantSet implements Variants {
  only: StoredResponse | undefined;
  readonly #groups = new Map<string, Group>();
  /** The only group, when there is exactly one: the hit path skips iterating the Map. */
  #single: Group | undefined;
  #size = 0;
  #tick = 0;

  get size(): number {
    return this.#size;
  }

  *values(): IterableIterator<StoredResponse> {
    for (const g of this.#groups.values()) for (const s of g.slots.values()) yield s.res;
  }

  select(headers: IncomingHttpHeaders): StoredResponse | undefined {
    if (this.only !== undefined) return this.only;
    const single = this.#single;
    if (single !== undefined) {
      const slot = single.slots.get(requestKey(single.names, headers));
      if (slot === undefined) return undefined;
      slot.used = ++this.#tick;
      return slot.res;
    }
    let best: Slot | undefined;
    for (const g of this.#groups.values()) {
      const slot = g.slots.get(requestKey(g.names, headers));
      // RFC 9111 §4.1: of several matching responses, the most recent one.
      if (slot !== undefined && (best === undefined || slot.res.responseTime >= best.res.responseTime)) best = slot;
    }
    if (best === undefined) return undefined;
    best.used = ++this.#tick;
    return best.res;
  }

  /** Adds `res`; returns the responses it displaced: the one with the same Vary values, then the least recently used beyond `max`. */
  add(res: StoredResponse, max: number): StoredResponse[] {
    const sig = signature(res.varyNames);
    let group = this.#groups.get(sig);
    if (group === undefined) this.#groups.set(sig, (group = { names: res.varyNames, slots: new Map() }));
    const displaced: StoredResponse[] = [];
    const same = group.slots.get(res.variantKey);
    if (same !== undefined) displaced.push(same.res);
    else this.#size++;
    group.slots.set(res.variantKey, { res, used: ++this.#tick });
    while (this.#size > max) displaced.push(this.#removeLeastRecent());
    this.#settle();
    return displaced;
  }

  /** Removes `res` if it is stored here; returns whether it was. */
  remove(res: StoredResponse): boolean {
    const sig = signature(res.varyNames);
    const group = this.#groups.get(sig);
    if (group === undefined || group.slots.get(res.variantKey)?.res !== res) return false;
    group.slots.delete(res.variantKey);
    if (group.slots.size === 0) this.#groups.delete(sig);
    this.#size--;
    this.#settle();
    return true;
  }

  #removeLeastRecent(): StoredResponse {
    let oldest: Slot | undefined;
    for (const g of this.#groups.values()) for (const s of g.slots.values()) if (oldest === undefined || s.used < oldest.used) oldest = s;
    this.remove(oldest!.res);
    return oldest!.res;
  }

  /** Recomputes the hit path's shortcuts: the single group, and the one response without Vary. */
  #settle(): void {
    this.#single = this.#groups.size === 1 ? (this.#groups.values().next().value as Group) : undefined;
    const first = this.#size === 1 ? (this.#single!.slots.values().next().value as Slot).res : undefined;
    this.only = first !== undefined && first.varyNames === undefined ? first : undefined;
  }
}
