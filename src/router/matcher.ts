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

interface Literal {
  /** The segment text (lower case unless the router is case-sensitive); ASCII only. */
  text: string;
  node: TrieNode;
}

interface TrieNode {
  literal: Map<string, TrieNode>;
  /**
   * Literal children bucketed by their first character code (literals are ASCII), so a segment is
   * compared in place — no substring, no hashing — against the few children it could be.
   */
  byFirst: Array<Literal[] | undefined> | undefined;
  param: TrieNode | undefined;
  terminals: Array<{ index: number; names: string[] }>;
}

function node(): TrieNode {
  return { literal: new Map(), byFirst: undefined, param: undefined, terminals: [] };
}

export class Matcher {
  private readonly root = node();
  /** Layers that need their regex on every request, in definition order. */
  private readonly always: Candidate[] = [];
  /** Full candidate lists for literal paths, computed at build time. */
  private readonly staticHits = new Map<string, readonly Candidate[]>();
  private readonly strict: boolean;
  private readonly sensitive: boolean;

  constructor(layers: readonly Layer[], options: { strict: boolean; sensitive: boolean }) {
    this.strict = options.strict;
    this.sensitive = options.sensitive;
    const literalKeys: string[] = [];
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
    });
    bucket(this.root);
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
    // Precomputed answers are keyed in the literals' case; any other spelling walks the trie,
    // which folds case as it compares (and keeps the request's case in param values).
    const hit = this.staticHits.get(key);
    if (hit !== undefined) return hit;
    return this.resolve(key, method, accept);
  }

  /** Walks the trie; `method`/`accept` drop terminals that cannot answer the method. */
  private resolve(key: string, method?: string, accept?: Accept): readonly Candidate[] {
    const found: Candidate[] = [];
    // Segments are walked by index (no split): `pos` is where the next segment starts,
    // key.length + 1 once there are none left.
    const walk: Walk = { key, bounds: [], found, sensitive: this.sensitive, method, accept: method === undefined ? undefined : accept };
    const nodes = collect(this.root, key === '/' ? 2 : 1, walk);
    if (found.length === 0) return this.always;
    // Terminals of one node are already in definition order; several nodes need a merge.
    if (nodes > 1) found.sort((a, b) => a.index - b.index);
    return this.always.length === 0 ? found : merge(found, this.always);
  }
}

/** Builds every node's first-character buckets (after all routes are in). */
function bucket(at: TrieNode): void {
  if (at.literal.size > 0) {
    const byFirst: Array<Literal[] | undefined> = new Array<Literal[] | undefined>(128).fill(undefined);
    for (const [text, child] of at.literal) (byFirst[text.charCodeAt(0)] ??= []).push({ text, node: child });
    at.byFirst = byFirst;
  }
  for (const child of at.literal.values()) bucket(child);
  if (at.param) bucket(at.param);
}

/** `key` holds literal `text` at `pos` (its first character already matched), folding ASCII case unless sensitive. */
function sameFrom1(key: string, pos: number, text: string, sensitive: boolean): boolean {
  for (let i = 1; i < text.length; i++) {
    let c = key.charCodeAt(pos + i);
    if (!sensitive && c >= 65 && c <= 90) c += 32;
    if (c !== text.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Depth-first over literal then param children; every terminal reached after the last segment
 * matches. `bounds` holds start/end pairs of the param values taken so far. Returns how many
 * trie nodes contributed terminals.
 */
interface Walk {
  key: string;
  bounds: number[];
  found: Candidate[];
  sensitive: boolean;
  method: string | undefined;
  accept: Accept | undefined;
}

function collect(at: TrieNode, pos: number, walk: Walk): number {
  const key = walk.key;
  const length = key.length;
  const bounds = walk.bounds;
  if (pos > length) {
    const { accept, method, found } = walk;
    const terminals = at.terminals;
    let captured: string[] | undefined;
    let added = 0;
    for (let t = 0; t < terminals.length; t++) {
      const terminal = terminals[t]!;
      if (accept !== undefined && !accept(terminal.index, method!)) continue;
      if (captured === undefined) {
        captured = [];
        for (let i = 0; i < bounds.length; i += 2) captured.push(key.slice(bounds[i], bounds[i + 1]));
      }
      found.push({ index: terminal.index, names: terminal.names, values: captured });
      added = 1;
    }
    return added;
  }
  let end = key.indexOf('/', pos);
  if (end === -1) end = length;
  let nodes = 0;
  const byFirst = at.byFirst;
  if (byFirst !== undefined && end > pos) {
    let first = key.charCodeAt(pos);
    const sensitive = walk.sensitive;
    if (!sensitive && first >= 65 && first <= 90) first += 32;
    // Literals are ASCII: a segment starting with anything else matches none of them.
    const candidates = first < 128 ? byFirst[first] : undefined;
    if (candidates !== undefined) {
      const size = end - pos;
      for (let i = 0; i < candidates.length; i++) {
        const lit = candidates[i]!;
        if (lit.text.length === size && sameFrom1(key, pos, lit.text, sensitive)) {
          nodes += collect(lit.node, end + 1, walk);
          break;
        }
      }
    }
  }
  if (at.param !== undefined && end > pos) {
    bounds.push(pos, end);
    nodes += collect(at.param, end + 1, walk);
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
