/**
 * @module router/first-search
 * The first route answering a request, found over the trie by branch-and-bound: the walk keeps
 * only the best (smallest) layer index so far and enters a subtree only if its `min` can beat it,
 * so a lookup builds no candidate list. `compileFirst` (router/first-compiled) generates the same
 * walk as straight-line code; this is the walk as a loop, for tables too big to compile.
 */
import { decodeParam } from './layer.js';
import { literalChild, type TrieNode } from './trie.js';

/** One router's first-route search; state is reused between calls (lookups are synchronous and never nest). */
export interface FirstFinder {
  /**
   * The smallest layer index whose indexed pattern matches `key` (up to `length`: a trailing slash
   * already dropped) and whose route answers `method`; -1 if none.
   */
  find(key: string, length: number, method: string): number;
  /** The percent-decoded params of the last `find`'s answer (throws a 400 for a malformed escape). */
  params(key: string): Record<string, string | undefined>;
}

export class TrieSearch implements FirstFinder {
  private key = '';
  private length = 0;
  private method = '';
  private best = Infinity;
  private names: readonly string[] = [];
  /** Start/end pairs of the params taken on the current path, and of the best terminal's. */
  private readonly bounds: number[] = [];
  private depth = 0;
  private readonly hit: number[] = [];
  private readonly root: TrieNode;
  private readonly sensitive: boolean;

  constructor(root: TrieNode, sensitive: boolean) {
    this.root = root;
    this.sensitive = sensitive;
  }

  find(key: string, length: number, method: string): number {
    this.key = key;
    this.length = length;
    this.method = method;
    this.best = Infinity;
    this.depth = 0;
    this.visit(this.root, length === 1 ? 2 : 1);
    return this.best === Infinity ? -1 : this.best;
  }

  params(key: string): Record<string, string | undefined> {
    const names = this.names;
    const hit = this.hit;
    const params: Record<string, string | undefined> = {};
    for (let i = 0; i < names.length; i++) params[names[i]!] = decodeParam(key.slice(hit[2 * i], hit[2 * i + 1]));
    return params;
  }

  /** Literal child, then param child; past the last segment, the node's first accepting terminal. */
  private visit(at: TrieNode, pos: number): void {
    const key = this.key;
    const length = this.length;
    if (pos > length) {
      const terminals = at.terminals;
      for (let t = 0; t < terminals.length; t++) {
        const terminal = terminals[t]!;
        if (terminal.index >= this.best) return;
        if (terminal.route === undefined || terminal.route.handlesMethod(this.method)) {
          this.best = terminal.index;
          this.names = terminal.names;
          for (let i = 0; i < this.depth; i++) this.hit[i] = this.bounds[i]!;
          return;
        }
      }
      return;
    }
    let end = pos;
    while (end < length && key.charCodeAt(end) !== 47 /* / */) end++;
    // An empty segment (`//`) matches neither a literal nor a param.
    if (end === pos) return;
    const literal = literalChild(at, key, pos, end, this.sensitive);
    if (literal !== undefined && literal.min < this.best) this.visit(literal, end + 1);
    const param = at.param;
    if (param !== undefined && param.min < this.best) {
      const depth = this.depth;
      this.bounds[depth] = pos;
      this.bounds[depth + 1] = end;
      this.depth = depth + 2;
      this.visit(param, end + 1);
      this.depth = depth;
    }
  }
}
