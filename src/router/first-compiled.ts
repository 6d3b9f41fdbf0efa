/**
 * @module router/first-compiled
 * The first-route search of router/first-search generated as code for one route table: each trie
 * node becomes a block, each literal a run of character-code comparisons, each param a pair of
 * local variables, each subtree bound a constant. No objects are visited per request, which is
 * what makes a near-end param route as cheap as in a radix router. Params come from an object
 * literal per route, so every route's params object gets a fixed shape.
 */
import { decodeParam } from './layer.js';
import type { FirstFinder } from './first-search.js';
import type { Route } from './route.js';
import type { Terminal, TrieNode } from './trie.js';

/**
 * Generated functions stay below this much source: V8 stops optimising a function whose bytecode
 * passes about 60 KB, and an unoptimised one is slower than the loop (then the loop is kept).
 */
const MAX_FUNCTION = 40_000;
/** A subtree whose code passes this becomes a function of its own, so big tables split up. */
const SPLIT = 8_000;
/** Routes' params builders per generated switch. */
const BUILD_CHUNK = 128;

/** Larger than any layer index: "no route yet". */
const NONE = 0x7fffffff;

type Search = (key: string, length: number, method: string, hit: number[]) => number;
type Decode = (value: string) => string | undefined;
type Build = (key: string, hit: readonly number[], decode: Decode) => Record<string, string | undefined>;

/** Values of a path without `%` need no decoding (one scan of the path instead of one per value). */
const keep: Decode = (value) => value;

class CompiledSearch implements FirstFinder {
  private readonly hit: number[] = [0];
  constructor(
    private readonly search: Search,
    private readonly build: Build,
  ) {}

  find(key: string, length: number, method: string): number {
    return this.search(key, length, method, this.hit);
  }

  params(key: string): Record<string, string | undefined> {
    return this.build(key, this.hit, key.indexOf('%') === -1 ? keep : decodeParam);
  }
}

/**
 * Generates the search for the trie under `root`, or undefined when the table is too wide to
 * split into functions V8 optimises, or the runtime forbids code generation (then the caller
 * keeps the loop).
 */
export function compileFirst(root: TrieNode, sensitive: boolean): FirstFinder | undefined {
  const terminals: Terminal[] = [];
  const functions: string[] = [];

  // `k` the path, `n` its length (trailing slash dropped), `m` the method, `R` the routes by
  // terminal, `h` the answer: terminal id, then start/end of each param. Segment d spans a<d>..b<d>.
  const block = (at: TrieNode, d: number, params: readonly string[]): string => {
    const a = `a${d}`;
    const b = `b${d}`;
    let code = '';
    if (at.terminals.length > 0) {
      // Terminals are in definition order: the first that answers the method is this node's best.
      const tests = at.terminals.map((t) => {
        const id = terminals.push(t) - 1;
        const record = params.map((v, i) => `h[${i + 1}] = ${v};`).join(' ');
        const answers = t.route === undefined ? '' : ` && R[${id}].handlesMethod(m)`;
        return `if (best > ${t.index}${answers}) { best = ${t.index}; h[0] = ${id}; ${record} }`;
      });
      code += `if (${a} > n) { ${tests.join(' else ')} }`;
    }
    let children = '';
    if (at.literal.size > 0) {
      const byLength = new Map<number, Array<[string, TrieNode]>>();
      for (const [text, child] of at.literal) {
        const group = byLength.get(text.length) ?? [];
        group.push([text, child]);
        byLength.set(text.length, group);
      }
      children += `switch (${b} - ${a}) {`;
      for (const [length, group] of byLength) {
        // Literals of one length are distinct (already case-folded), so at most one matches.
        const tests = group.map(([text, child]) =>
          `if (${same(text, a, sensitive)}) { if (best > ${child.min}) { const a${d + 1} = ${b} + 1; ${subtree(child, d + 1, params)} } }`);
        children += ` case ${length}: ${tests.join(' else ')} break;`;
      }
      children += ' }';
    }
    if (at.param !== undefined) {
      children += ` if (best > ${at.param.min}) { const a${d + 1} = ${b} + 1; ${subtree(at.param, d + 1, [...params, a, b])} }`;
    }
    if (children !== '') {
      // An empty segment (`//`) matches neither a literal nor a param.
      code += `${code === '' ? `if (${a} <= n)` : ' else'} { let ${b} = ${a}; while (${b} < n && k.charCodeAt(${b}) !== 47) ${b}++;` +
        ` if (${b} !== ${a}) { ${children} } }`;
    }
    return code;
  };

  /** A child's block inline, or a call to it as a function of its own when it is big. */
  const subtree = (at: TrieNode, d: number, params: readonly string[]): string => {
    const code = block(at, d, params);
    if (code.length <= SPLIT) return code;
    const name = `s${functions.length}`;
    const args = ['k', 'n', 'm', 'h', 'best', `a${d}`, ...params].join(', ');
    functions.push(`function ${name}(${args}) { ${code} return best; }`);
    return `best = ${name}(${args});`;
  };

  functions.push(`function search(k, n, m, h) { let best = ${NONE}; const a0 = n === 1 ? 2 : 1; ${block(root, 0, [])} return best === ${NONE} ? -1 : best; }`);
  const chunks: string[] = [];
  for (let from = 0; from < terminals.length; from += BUILD_CHUNK) {
    const cases = terminals.slice(from, from + BUILD_CHUNK)
      .map((t, i) => (t.names.length === 0 ? '' : `case ${from + i}: ${paramsCode(t.names)}`)).join(' ');
    chunks.push(`function b${chunks.length}(k, h, D) { switch (h[0]) { ${cases} } return {}; }`);
  }
  const dispatch = chunks.map((_, i) => `if (h[0] < ${(i + 1) * BUILD_CHUNK}) return b${i}(k, h, D);`).join(' ');
  functions.push(...chunks, `function build(k, h, D) { ${dispatch} return {}; }`);
  if (functions.some((f) => f.length > MAX_FUNCTION)) return undefined;
  try {
    const make = new Function('R', `${functions.join('\n')}\nreturn [search, build];`) as
      (routes: ReadonlyArray<Route | undefined>) => [Search, Build];
    const [search, build] = make(terminals.map((t) => t.route));
    return new CompiledSearch(search, build);
  } catch {
    // e.g. node --disallow-code-generation-from-strings
    return undefined;
  }
}

/** `k` holds `text` at `a<d>` (its length already checked); ASCII letters fold unless case-sensitive. */
function same(text: string, a: string, sensitive: boolean): string {
  const tests: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const at = i === 0 ? a : `${a} + ${i}`;
    // `| 32` maps exactly A-Z onto a-z among the codes that can equal a lower-case letter.
    const fold = !sensitive && c >= 97 && c <= 122;
    tests.push(fold ? `(k.charCodeAt(${at}) | 32) === ${c}` : `k.charCodeAt(${at}) === ${c}`);
  }
  return tests.join(' && ');
}

/**
 * Returns one route's params: an object literal when the names are distinct, else assignments in
 * order (a repeated name keeps the last value, as the regex path does); `__proto__` is assigned too.
 */
function paramsCode(names: readonly string[]): string {
  const value = (i: number): string => `D(k.slice(h[${2 * i + 1}], h[${2 * i + 2}]))`;
  if (new Set(names).size === names.length && !names.includes('__proto__')) {
    return `return { ${names.map((name, i) => `${JSON.stringify(name)}: ${value(i)}`).join(', ')} };`;
  }
  return `{ const p = {}; ${names.map((name, i) => `p[${JSON.stringify(name)}] = ${value(i)};`).join(' ')} return p; }`;
}
