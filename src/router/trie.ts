/**
 * @module router/trie
 * The segment trie under the matcher: literal segments and whole-segment `:params`, with each
 * node's terminals (the routes ending there) and the smallest layer index below it.
 */
import type { Route } from './route.js';

export interface Literal {
  /** The segment text (lower case unless the router is case-sensitive); ASCII only. */
  text: string;
  node: TrieNode;
}

export interface Terminal {
  /** Index of the layer in the stack. */
  index: number;
  names: string[];
  /** The layer's route (indexed layers are routes); its methods are read per request, as they may be added later. */
  route: Route | undefined;
}

export interface TrieNode {
  literal: Map<string, TrieNode>;
  /**
   * Literal children bucketed by their first character code (literals are ASCII), so a segment is
   * compared in place — no substring, no hashing — against the few children it could be.
   */
  byFirst: Array<Literal[] | undefined> | undefined;
  param: TrieNode | undefined;
  /** In definition order. */
  terminals: Terminal[];
  /** Smallest layer index of any terminal at or below this node: a first-match search skips subtrees that cannot win. */
  min: number;
}

export function trieNode(): TrieNode {
  return { literal: new Map(), byFirst: undefined, param: undefined, terminals: [], min: Infinity };
}

/** Adds a route's segments (literal text, or null for a param) below `root`; returns the node it ends at. */
export function insert(root: TrieNode, segments: ReadonlyArray<string | null>): TrieNode {
  let at = root;
  for (const seg of segments) {
    if (seg === null) at = at.param ??= trieNode();
    else {
      let child = at.literal.get(seg);
      if (!child) at.literal.set(seg, (child = trieNode()));
      at = child;
    }
  }
  return at;
}

/** Builds every node's first-character buckets and subtree minimum (after all routes are in). */
export function seal(at: TrieNode): number {
  if (at.literal.size > 0) {
    const byFirst: Array<Literal[] | undefined> = new Array<Literal[] | undefined>(128).fill(undefined);
    for (const [text, child] of at.literal) (byFirst[text.charCodeAt(0)] ??= []).push({ text, node: child });
    at.byFirst = byFirst;
  }
  let min = at.terminals.length > 0 ? at.terminals[0]!.index : Infinity;
  for (const child of at.literal.values()) min = Math.min(min, seal(child));
  if (at.param) min = Math.min(min, seal(at.param));
  return (at.min = min);
}

/**
 * The literal child of `at` spelled by the segment `key[pos, end)` (non-empty), comparing in place
 * and folding ASCII case unless `sensitive`; undefined when none is.
 */
export function literalChild(at: TrieNode, key: string, pos: number, end: number, sensitive: boolean): TrieNode | undefined {
  const byFirst = at.byFirst;
  if (byFirst === undefined) return undefined;
  let first = key.charCodeAt(pos);
  if (!sensitive && first >= 65 && first <= 90) first += 32;
  // Literals are ASCII: a segment starting with anything else matches none of them.
  const candidates = first < 128 ? byFirst[first] : undefined;
  if (candidates === undefined) return undefined;
  const size = end - pos;
  for (let i = 0; i < candidates.length; i++) {
    const lit = candidates[i]!;
    if (lit.text.length === size && sameFrom1(key, pos, lit.text, sensitive)) return lit.node;
  }
  return undefined;
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
