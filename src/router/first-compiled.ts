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
 * Above this much generated source the search stays a loop: V8 stops optimising functions whose
 * bytecode passes about 60 KB, and an unoptimised giant would be slower than the loop.
 */
const MAX_SOURCE = 60_000;

/** Larger than any layer index: "no route yet". */
const NONE = 0x7fffffff;

type Search = (key: string, length: number, method: string, routes: ReadonlyArray<Route | undefined>, hit: number[]) => number;
type Build = (key: string, hit: readonly number[], decode: typeof decodeParam) => Record<string, string | undefined>;

class CompiledSearch implements FirstFinder {
  private readonly hit: number[] = [0];
  constructor(
    private readonly search: Search,
    private readonly build: Build,
    private readonly routes: ReadonlyArray<Route | undefined>,
  ) {}

  find(key: string, length: number, method: string): number {
    return this.search(key, length, method, this.routes, this.hit);
  }

  params(key: string): Record<string, string | undefined> {
    return this.build(key, this.hit, decodeParam);
  }
}

/**
 * Generates the search for the trie under `root`, or undefined when the table is too big or the
 * runtime forbids code generation (then the caller keeps the loop).
 */
export function compileFirst(root: TrieNode, sensitive: boolean): FirstFinder | undefined {
  const terminals: Terminal[] = [];

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
          `if (${same(text, a, sensitive)}) { if (best > ${child.min}) { const a${d + 1} = ${b} + 1; ${block(child, d + 1, params)} } }`);
        children += ` case ${length}: ${tests.join(' else ')} break;`;
      }
      children += ' }';
    }
    if (at.param !== undefined) {
      children += ` if (best > ${at.param.min}) { const a${d + 1} = ${b} + 1; ${block(at.param, d + 1, [...params, a, b])} }`;
    }
    if (children !== '') {
      // An empty segment (`//`) matches neither a literal nor a param.
      code += `${code === '' ? `if (${a} <= n)` : ' else'} { let ${b} = ${a}; while (${b} < n && k.charCodeAt(${b}) !== 47) ${b}++;` +
        ` if (${b} !== ${a}) { ${children} } }`;
    }
    return code;
  };

  const body = `let best = ${NONE}; const a0 = n === 1 ? 2 : 1; ${block(root, 0, [])} return best === ${NONE} ? -1 : best;`;
  if (body.length > MAX_SOURCE) return undefined;
  const cases = terminals.map((t, id) => (t.names.length === 0 ? '' : `case ${id}: ${paramsCode(t.names)}`)).join(' ');
  try {
    const search = new Function('k', 'n', 'm', 'R', 'h', body) as Search;
    const build = new Function('k', 'h', 'd', `switch (h[0]) { ${cases} } return {};`) as Build;
    return new CompiledSearch(search, build, terminals.map((t) => t.route));
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
  const value = (i: number): string => `d(k.slice(h[${2 * i + 1}], h[${2 * i + 2}]))`;
  if (new Set(names).size === names.length && !names.includes('__proto__')) {
    return `return { ${names.map((name, i) => `${JSON.stringify(name)}: ${value(i)}`).join(', ')} };`;
  }
  return `{ const p = {}; ${names.map((name, i) => `p[${JSON.stringify(name)}] = ${value(i)};`).join(' ')} return p; }`;
}
