/**
 * @module router/path
 * Compiles Express 4 route paths (the path-to-regexp 0.1.x dialect, as 0.1.13 in Express 4.22) to a RegExp plus its keys,
 * and recognises the "simple" patterns the matcher can index without running a regex.
 *
 * The dialect has quirks Express users rely on (only `.` and `*` are escaped in literal text,
 * `/(` opens a non-capturing group, a parameter after literal text in the same segment refuses
 * to run into that text again). They are reproduced exactly here; test/router/path-differential
 * checks thousands of generated patterns against path-to-regexp@0.1.13 itself.
 */

export interface PathKey {
  name: string | number;
  optional: boolean;
  offset: number;
}

export interface PathOptions {
  /** Case-sensitive matching (`caseSensitive`). */
  sensitive?: boolean;
  /** Trailing slash significant (`strict`). */
  strict?: boolean;
  /** Match the whole path (routes) or only a prefix that ends at `/` (middleware mounts). */
  end?: boolean;
}

export type RoutePath = string | RegExp | Array<string | RegExp>;

export interface CompiledPath {
  regexp: RegExp;
  keys: PathKey[];
}

// Groups in generated source: escapes are skipped, `(?:`/`(?=` are not captures, `(?<name>` is.
const GROUP = /\\.|\((?:\?<(.*?)>)?(?!\?)/g;
const WORD = /\w/;
const LINE_END = /[\n\r\u2028\u2029]/;

/** Compiles a path exactly as Express 4 does (path-to-regexp 0.1.13 semantics). */
export function compilePath(path: RoutePath, options: PathOptions = {}, keys: PathKey[] = []): CompiledPath {
  const flags = options.sensitive ? '' : 'i';
  if (path instanceof RegExp) {
    let anonymous = 0;
    for (const m of path.source.matchAll(GROUP)) {
      if (m[0][0] === '\\') continue;
      keys.push({ name: m[1] || anonymous++, optional: false, offset: m.index ?? 0 });
    }
    return { regexp: path, keys };
  }
  if (Array.isArray(path)) {
    const sources = path.map((p) => compilePath(p, options, keys).regexp.source);
    return { regexp: new RegExp(sources.join('|'), flags), keys };
  }
  if (typeof path !== 'string') {
    throw new TypeError('roa: a route path must be a string, a RegExp or an array of them');
  }
  return { regexp: new RegExp('^' + compileString(path, options, keys), flags), keys };
}

interface ParamToken {
  kind: 'param';
  length: number;
  slash: boolean;
  format: boolean;
  name: string;
  capture: string | undefined;
  star: boolean;
  optional: boolean;
}
type Token = { kind: 'escape' | 'dot' | 'star' | 'group'; length: number } | ParamToken;

/** Reads the token starting at `i`, or undefined when the character there is plain literal text. */
function tokenAt(path: string, i: number): Token | undefined {
  const c = path[i];
  if (c === '\\' && i + 1 < path.length && !LINE_END.test(path[i + 1]!)) return { kind: 'escape', length: 2 };
  const param = paramAt(path, i);
  if (param) return param;
  if (c === '.') return { kind: 'dot', length: 1 };
  if (c === '*') return { kind: 'star', length: 1 };
  if (c === '/' && path[i + 1] === '(') return { kind: 'group', length: 2 };
  return undefined;
}

/** `[/][.]:name[(capture)][*][?]` starting exactly at `i`. */
function paramAt(path: string, i: number): ParamToken | undefined {
  let j = i;
  const slash = path[j] === '/' && (path[j + 1] === ':' || (path[j + 1] === '.' && path[j + 2] === ':'));
  if (slash) j++;
  const format = path[j] === '.' && path[j + 1] === ':';
  if (format) j++;
  if (path[j] !== ':') return undefined;
  let k = j + 1;
  while (k < path.length && WORD.test(path[k]!)) k++;
  if (k === j + 1) return undefined;
  const name = path.slice(j + 1, k);
  let capture: string | undefined;
  if (path[k] === '(') {
    // Non-greedy: the capture ends at the first `)` on the same line.
    for (let e = k + 1; e < path.length && !LINE_END.test(path[e]!); e++) {
      if (path[e] === ')') {
        capture = path.slice(k, e + 1);
        k = e + 1;
        break;
      }
    }
  }
  const star = path[k] === '*';
  if (star) k++;
  const optional = path[k] === '?';
  if (optional) k++;
  return { kind: 'param', length: k - i, slash, format, name, capture, star, optional };
}

function compileString(path: string, options: PathOptions, keys: PathKey[]): string {
  const keysStart = keys.length;
  let out = '';
  let backtrack = '';
  let pos = 0;
  let extraOffset = 0;
  let i = 0;
  while (i < path.length) {
    const token = tokenAt(path, i);
    if (!token) {
      out += path[i];
      i++;
      continue;
    }
    const offset = i;
    const match = path.slice(i, i + token.length);
    i += token.length;
    if (token.kind === 'escape') {
      backtrack += match;
      pos += 2;
      out += match;
      continue;
    }
    if (token.kind === 'dot') {
      backtrack += '\\.';
      extraOffset += 1;
      pos += 1;
      out += '\\.';
      continue;
    }
    if (token.kind === 'param' && (token.slash || token.format)) backtrack = '';
    else backtrack += path.slice(pos, offset);
    pos = offset + match.length;
    if (token.kind === 'star') {
      extraOffset += 3;
      out += '(.*)';
      // 0.1.13 (what Express 4.22 ships): text before a `*` no longer constrains later params.
      backtrack = '';
      continue;
    }
    if (token.kind === 'group') {
      backtrack += '/';
      extraOffset += 2;
      out += '/(?:';
      continue;
    }
    if (token.kind !== 'param') continue;
    const format = token.format ? '\\.' : '';
    const capture = token.capture !== undefined
      ? token.capture.replace(/\\.|\*/, (m: string) => (m === '*' ? '(.*)' : m))
      : backtrack
        ? '((?:(?!/|' + backtrack + ').)+?)'
        : '([^/' + format + ']+?)';
    keys.push({ name: token.name, optional: token.optional, offset: offset + extraOffset });
    const result = '(?:' + format + (token.slash ? '/' : '') + capture
      + (token.star ? '((?:[/' + format + '].+?)?)' : '') + ')' + (token.optional ? '?' : '');
    extraOffset += result.length - match.length;
    out += result;
    // 0.1.13: a param consumes the text it must not run into, so the next param starts afresh.
    backtrack = '';
  }

  // Unnamed groups (from `*` or raw parentheses) become positional keys 0, 1, ...
  let anonymous = 0;
  let seen = 0;
  for (const m of out.matchAll(GROUP)) {
    if (m[0][0] === '\\') continue;
    const at = keysStart + seen;
    if (at === keys.length || keys[at]!.offset > (m.index ?? 0)) {
      keys.splice(at, 0, { name: anonymous++, optional: false, offset: m.index ?? 0 });
    }
    seen++;
  }

  out += options.strict ? '' : out[out.length - 1] === '/' ? '?' : '/?';
  if (options.end !== false) out += '$';
  else if (out[out.length - 1] !== '/') out += '(?=/|$)';
  return out;
}

/**
 * A pattern the matcher can index: literal segments and whole-segment `:name` params only.
 * `segments` holds each literal (lower-cased unless case-sensitive) or null for a param.
 */
export interface SimplePattern {
  segments: Array<string | null>;
  paramNames: string[];
}

// Literal characters that carry no meaning in the 0.1.x dialect nor in a RegExp.
const SAFE_LITERAL = /^[A-Za-z0-9\-_~.%!@&=,;'"<>#]+$/;
const SIMPLE_PARAM = /^:(\w+)$/;

/**
 * Returns the indexable form of a string route path, or undefined when only the regex
 * can decide (optional/custom/star params, formats, groups, arrays, RegExps, a trailing `/`).
 */
export function simplePattern(path: RoutePath, sensitive: boolean): SimplePattern | undefined {
  if (typeof path !== 'string' || path[0] !== '/') return undefined;
  if (path === '/') return { segments: [], paramNames: [] };
  if (path.endsWith('/')) return undefined;
  const segments: Array<string | null> = [];
  const paramNames: string[] = [];
  for (const part of path.slice(1).split('/')) {
    if (part === '') return undefined;
    const param = SIMPLE_PARAM.exec(part);
    if (param) {
      segments.push(null);
      paramNames.push(param[1]!);
      continue;
    }
    if (!SAFE_LITERAL.test(part)) return undefined;
    segments.push(sensitive ? part : asciiLower(part));
  }
  return { segments, paramNames };
}

/** Lower-cases ASCII letters only: JS regexes without the `u` flag never fold other letters to ASCII. */
export function asciiLower(s: string): string {
  return UPPER.test(s) ? s.replace(UPPER_ALL, (m) => m.toLowerCase()) : s;
}

const UPPER = /[A-Z]/;
const UPPER_ALL = /[A-Z]+/g;
