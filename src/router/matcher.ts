/**
 * @module router/matcher
 * The compiled index over a router's stack. Given a path it yields, in definition order, every
 * layer that may match: routes on literal paths come from a map, routes with whole-segment
 * `:params` from a segment trie, and everything else (middleware mounts, RegExps, optional or
 * custom params) is kept in a short list that is checked with its regex. No per-request scan of
 * every route's regex.
 */
import { asciiLower } from './path.js';
import type { Layer } from './layer.js';

export interface Candidate {
  /** Index of the layer in the stack. */
  index: number;
  /** Raw (still percent-encoded) params when the index already matched; undefined: run the regex. */
  raw: Record<string, string> | undefined;
}

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
        this.always.push({ index, raw: undefined });
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

  /** Every layer that may match `path`, in stack order. */
  lookup(path: string): readonly Candidate[] {
    let key = path;
    if (!this.strict && key.length > 1 && key.charCodeAt(key.length - 1) === 47 /* / */) {
      key = key.slice(0, -1);
      // `//` is not `/` plus a trailing slash: no indexed pattern matches it.
      if (key === '/') return this.always;
    }
    const original = key;
    if (!this.sensitive) key = asciiLower(key);
    // Precomputed answers carry lower-cased param values, so they serve only unchanged paths.
    if (key === original) {
      const hit = this.staticHits.get(key);
      if (hit !== undefined) return hit;
    }
    if (!this.hasParams && !this.staticHits.has(key)) return this.always;
    return this.resolve(key, original);
  }

  /** Walks the trie for a normalised key; `original` keeps the case of captured values. */
  private resolve(key: string, original: string = key): readonly Candidate[] {
    const segs = key === '/' ? [] : key.slice(1).split('/');
    const rawSegs = original === key ? segs : original.slice(1).split('/');
    const found: Candidate[] = [];
    collect(this.root, segs, rawSegs, 0, [], found);
    if (found.length === 0) return this.always;
    if (found.length > 1) found.sort((a, b) => a.index - b.index);
    return this.always.length === 0 ? found : merge(found, this.always);
  }
}

/** Depth-first over literal then param children; every terminal reached at the last segment matches. */
function collect(at: TrieNode, segs: readonly string[], rawSegs: readonly string[], depth: number, values: string[], found: Candidate[]): void {
  if (depth === segs.length) {
    const terminals = at.terminals;
    for (let t = 0; t < terminals.length; t++) {
      const names = terminals[t]!.names;
      const raw: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) raw[names[i]!] = values[i]!;
      found.push({ index: terminals[t]!.index, raw });
    }
    return;
  }
  const seg = segs[depth]!;
  const child = at.literal.get(seg);
  if (child !== undefined) collect(child, segs, rawSegs, depth + 1, values, found);
  if (at.param !== undefined && seg.length > 0) {
    values.push(rawSegs[depth]!);
    collect(at.param, segs, rawSegs, depth + 1, values, found);
    values.pop();
  }
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
