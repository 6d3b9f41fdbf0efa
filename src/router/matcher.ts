/**
 * @module router/matcher
 * The compiled index over a router's stack. Given a path it yields, in definition order, every
 * layer that may match: routes on literal paths come from a map, routes with whole-segment
 * `:params` from a segment trie, and everything else (middleware mounts, RegExps, optional or
 * custom params) is kept in a short list that is checked with its regex. No per-request scan of
 * every route's regex. Dispatch starts from the first route for a method when the table allows
 * (`firstIndexed`: router/first-search, code generated per table by router/first-compiled).
 */
import { compileFirst } from './first-compiled.js';
import { TrieSearch, type FirstFinder } from './first-search.js';
import { decodeParam, type Layer } from './layer.js';
import type { Route } from './route.js';
import { insert, literalChild, seal, trieNode, type TrieNode } from './trie.js';

export interface Candidate {
  /** Index of the layer in the stack. */
  index: number;
  /**
   * Param names when the index already matched (values in `values`, still percent-encoded);
   * undefined: run the layer's regex. Params are built only for the layer that runs.
   */
  names: readonly string[] | undefined;
  values: readonly string[] | undefined;
  /** Already decoded params (from `firstIndexed`); then `names` and `values` are unused. */
  params?: Record<string, string | undefined>;
}

/** Whether the layer at `index` can answer `method` (lets the index drop routes early). */
export type Accept = (index: number, method: string) => boolean;

/** The first route answering a request, with its percent-decoded params. */
export interface RouteHit {
  route: Route;
  params: Record<string, string | undefined>;
}

export class Matcher {
  private readonly root = trieNode();
  /** Layers that need their regex on every request, in definition order. */
  private readonly always: Candidate[] = [];
  /** Full candidate lists for literal paths, computed at build time. */
  private readonly staticHits = new Map<string, readonly Candidate[]>();
  private readonly strict: boolean;
  private readonly sensitive: boolean;
  private readonly layers: readonly Layer[];
  /** Indices of the `always` layers that are routes (what a first-route lookup must try). */
  private readonly alwaysRoutes: readonly number[];
  /** The first-route search, built on the first `first` call (dispatch alone never needs it). */
  private search: FirstFinder | undefined;
  private readonly compile: boolean;
  private every: Candidate[] | undefined;

  /** `compile: false` keeps the first-route search a loop over the trie (tests compare the two). */
  constructor(layers: readonly Layer[], options: { strict: boolean; sensitive: boolean; compile?: boolean }) {
    this.strict = options.strict;
    this.sensitive = options.sensitive;
    const literalKeys: string[] = [];
    layers.forEach((layer, index) => {
      const simple = layer.simple;
      if (!simple) {
        this.always.push({ index, names: undefined, values: undefined });
        return;
      }
      insert(this.root, simple.segments).terminals.push({ index, names: simple.paramNames, route: layer.route });
      if (simple.paramNames.length === 0) literalKeys.push('/' + simple.segments.join('/'));
    });
    seal(this.root);
    this.layers = layers;
    this.alwaysRoutes = this.always.map((c) => c.index).filter((index) => layers[index]!.route !== undefined);
    this.compile = options.compile !== false;
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
    if (path.charCodeAt(0) !== 47 /* / */) return this.everyLayer();
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

  /**
   * Where dispatch may start without the full candidate list: when every layer is an indexed
   * route (no middleware, no regex) and `path` has nothing to decode, the first route answering
   * `method` comes from the first-route search as one candidate carrying its params — the rest
   * are only needed if it calls `next()`, and then `lookup` gives them. A literal path gives its
   * precomputed list, no match the empty list. Undefined: not applicable, use `lookup`.
   */
  firstIndexed(path: string, method: string): readonly Candidate[] | undefined {
    if (this.always.length !== 0 || path.charCodeAt(0) !== 47 /* / */ || path.indexOf('%') !== -1) return undefined;
    let length = path.length;
    let key = path;
    if (!this.strict && length > 1 && path.charCodeAt(length - 1) === 47 /* / */) {
      length--;
      key = path.slice(0, length);
      if (length === 1) return this.always;
    }
    const hit = this.staticHits.get(key);
    if (hit !== undefined) return hit;
    const search = this.firstFinder();
    const found = search.find(path, length, method);
    if (found === -1) return this.always;
    return [{ index: found, names: undefined, values: undefined, params: search.params(path) }];
  }

  /**
   * The first route (in definition order) that matches `path` and answers `method`, with decoded
   * params; middleware is ignored. Unlike `lookup` it builds no candidate list: the trie search
   * keeps only the best terminal so far and skips subtrees whose smallest index cannot beat it.
   * Dispatch uses the same search through `firstIndexed`; this whole-table form lets tests check
   * the search (generated and loop) against a scan in definition order.
   */
  first(path: string, method: string): RouteHit | undefined {
    if (path.charCodeAt(0) !== 47 /* / */) return this.firstOf(this.everyLayer(), path, method);
    let length = path.length;
    let key = path;
    if (!this.strict && length > 1 && path.charCodeAt(length - 1) === 47 /* / */) {
      length--;
      key = path.slice(0, length);
      if (length === 1) return this.firstAlways(path, method, Infinity);
    }
    const hit = this.staticHits.get(key);
    if (hit !== undefined) return this.firstOf(hit, path, method);
    const search = this.firstFinder();
    const found = search.find(path, length, method);
    const best = found === -1 ? Infinity : found;
    if (this.alwaysRoutes.length !== 0 && this.alwaysRoutes[0]! < best) {
      const before = this.firstAlways(path, method, best);
      if (before !== undefined) return before;
    }
    if (found === -1) return undefined;
    return { route: this.layers[found]!.route!, params: search.params(path) };
  }

  private firstFinder(): FirstFinder {
    return (this.search ??= (this.compile ? compileFirst(this.root, this.sensitive) : undefined) ?? new TrieSearch(this.root, this.sensitive));
  }

  /**
   * Every layer, to be tried by its regex: for a path without a leading `/` (`*`, `x`, or empty
   * from a target like `?q`), which the trie would read as if the slash were there.
   */
  private everyLayer(): readonly Candidate[] {
    return (this.every ??= this.layers.map((_, index) => ({ index, names: undefined, values: undefined })));
  }

  /** The first route of a precomputed list that answers `method`. */
  private firstOf(candidates: readonly Candidate[], path: string, method: string): RouteHit | undefined {
    for (let i = 0; i < candidates.length; i++) {
      const candidate = candidates[i]!;
      const layer = this.layers[candidate.index]!;
      const route = layer.route;
      if (route === undefined || !route.handlesMethod(method)) continue;
      const names = candidate.names;
      if (names === undefined) {
        const m = layer.match(path);
        if (m !== undefined) return { route, params: m.params };
        continue;
      }
      const values = candidate.values!;
      const params: Record<string, string | undefined> = {};
      for (let j = 0; j < names.length; j++) params[names[j]!] = decodeParam(values[j]);
      return { route, params };
    }
    return undefined;
  }

  /** The first regex-only route before layer `bound` that matches and answers `method`. */
  private firstAlways(path: string, method: string, bound: number): RouteHit | undefined {
    const routes = this.alwaysRoutes;
    for (let i = 0; i < routes.length && routes[i]! < bound; i++) {
      const layer = this.layers[routes[i]!]!;
      if (!layer.route!.handlesMethod(method)) continue;
      const m = layer.match(path);
      if (m !== undefined) return { route: layer.route!, params: m.params };
    }
    return undefined;
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
  // An empty segment (`//`) matches neither a literal nor a param.
  if (end === pos) return 0;
  let nodes = 0;
  const literal = literalChild(at, key, pos, end, walk.sensitive);
  if (literal !== undefined) nodes += collect(literal, end + 1, walk);
  if (at.param !== undefined) {
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
