/**
 * @module router/matcher
 * The compiled index over a router's stack. Given a path it yields, in definition order, every
 * layer that may match: routes on literal paths come from a map, routes with whole-segment
 * `:params` from a segment trie, and everything else (middleware mounts, RegExps, optional or
 * custom params) is kept in a short list that is checked with its regex. No per-request scan of
 * every route's regex.
 */
import type { Layer } from './layer.js';

export interface Candidate {
  /** Index of the layer in the stack. */
  index: number;
  /**
   * Param names when the index already matched (values in `values`, still percent-encoded);
   * undefined: run the layer's regex. Params are built only for the layer that runs.
   */
  names: readonly string[] | undefined;
  values: readonly string[] | undefined;
}

/** Whether the layer at `index` can answer `method` (lets the index drop routes early). */
export type Accept = (index: number, method: string) => boolean;

interface TrieNode {
  literal: Map<string, TrieNode>;
  param: TrieNode | undefined;
  terminals: Array<{ index: number; names: string[] }>;
}

const EMPTY: readonly Candidate[] = [];

function node(): TrieNode {
  return { literal: new Map(), param: undefined, terminals: [] };
}

export class Matcher {
  private readonly root = node();
  /** Layers that need their regex on every request, in definition order. */
  private readonly always: Candidate[] = [];
  /** Full candidate lists for literal paths, computed at build time. */
  private readonly staticHits = new Map<string, readonly Candidate[]>();
  private readonly strict: boolean;
  private readonly sensitive: boolean;
  private readonly hasParams: boolean;

  constructor(layers: readonly Layer[], options: { strict: boolean; sensitive: boolean }) {
    this.strict = options.strict;
    this.sensitive = options.sensitive;
    const literalKeys: string[] = [];
    let hasParams = false;
    layers.forEach((layer, index) => {
      const simple = layer.simple;
      if (!simple) {
        this.always.push({ index, names: undefined, values: undefined });
        return;
      }
      let at = this.root;
      for (const seg of simple.segments) {
        if (seg === null) at = at.param ??= node();
        else {
          let child = at.literal.get(seg);
          if (!child) at.literal.set(seg, (child = node()));
          at = child;
        }
      }
      at.terminals.push({ index, names: simple.paramNames });
      if (simple.paramNames.length === 0) literalKeys.push('/' + simple.segments.join('/'));
      else hasParams = true;
    });
    this.hasParams = hasParams;
    // A literal path's answer never changes: resolve it once, params and all.
    for (const key of literalKeys) {
      if (!this.staticHits.has(key)) this.staticHits.set(key, this.resolve(key));
    }
  }

  /**
   * Every layer that may match `path`, in stack order. `accept` may drop indexed routes early
   * (the router passes "handles this method"); layers that need their regex are always kept.
   */
  lookup(path: string, method?: string, accept?: Accept): readonly Candidate[] {
    let key = path;
    if (!this.strict && key.length > 1 && key.charCodeAt(key.length - 1) === 47 /* / */) {
      key = key.slice(0, -1);
      // `//` is not `/` plus a trailing slash: no indexed pattern matches it.
      if (key === '/') return this.always;
    }
    // Precomputed answers carry lower-cased param values, so they serve only paths that are
    // already lower case — which a direct hit on a (lower-cased) key proves.
    const hit = this.staticHits.get(key);
    if (hit !== undefined) return hit;
    const original = key;
    // Request targets arrive as Latin-1 strings, where toLowerCase folds exactly what a regex's
    // `i` flag folds; it is also several times faster than a scan here.
    if (!this.sensitive) key = key.toLowerCase();
    if (!this.hasParams && !this.staticHits.has(key)) return this.always;
    return this.resolve(key, original, method, accept);
  }

  /** Walks the trie for a normalised key; `original` keeps the case of captured values. */
  private resolve(key: string, original: string = key, method?: string, accept?: Accept): readonly Candidate[] {
    const found: Candidate[] = [];
    // Segments are walked by index (no split): `pos` is where the next segment starts,
    // key.length + 1 once there are none left.
    const nodes = collect(this.root, key, original, key === '/' ? 2 : 1, [], found, method, method === undefined ? undefined : accept);
    if (found.length === 0) return this.always;
    // Terminals of one node are already in definition order; several nodes need a merge.
    if (nodes > 1) found.sort((a, b) => a.index - b.index);
    return this.always.length === 0 ? found : merge(found, this.always);
  }
}

/**
 * Depth-first over literal then param children; every terminal reached after the last segment
 * matches. `bounds` holds start/end pairs of the param values taken so far. Returns how many
 * trie nodes contributed terminals.
 */
function collect(at: TrieNode, key: string, original: string, pos: number, bounds: number[], found: Candidate[], method: string | undefined, accept: Accept | undefined): number {
  const length = key.length;
  if (pos > length) {
    const terminals = at.terminals;
    let captured: string[] | undefined;
    let added = 0;
    for (let t = 0; t < terminals.length; t++) {
      const terminal = terminals[t]!;
      if (accept !== undefined && !accept(terminal.index, method!)) continue;
      if (captured === undefined) {
        captured = [];
        for (let i = 0; i < bounds.length; i += 2) captured.push(original.slice(bounds[i], bounds[i + 1]));
      }
      found.push({ index: terminal.index, names: terminal.names, values: captured });
      added = 1;
    }
    return added;
  }
  let end = key.indexOf('/', pos);
  if (end === -1) end = length;
  let nodes = 0;
  if (at.literal.size !== 0) {
    const child = at.literal.get(key.slice(pos, end));
    if (child !== undefined) nodes += collect(child, key, original, end + 1, bounds, found, method, accept);
  }
  if (at.param !== undefined && end > pos) {
    bounds.push(pos, end);
    nodes += collect(at.param, key, original, end + 1, bounds, found, method, accept);
    bounds.pop();
    bounds.pop();
  }
  return nodes;
}

function merge(a: readonly Candidate[], b: readonly Candidate[]): Candidate[] {
  const out: Candidate[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(a[i]!.index < b[j]!.index ? a[i++]! : b[j++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

export { EMPTY as NO_CANDIDATES };
