/**
 * @module http/query
 * Parses query strings and urlencoded bodies with qs-style nesting (`a[b][c]=1`), bounded so a
 * hostile string cannot build deep objects or huge arrays, and never writing to prototypes.
 */
import qs from 'qs';

export interface QueryOptions {
  /** Deepest nesting of `a[b][c]` kept as objects (default 5, qs's default). */
  depth?: number;
  /** Most parameters read (default 1000); more are ignored. */
  parameterLimit?: number;
  /**
   * Array index bound (default 1000, Express 4's query parser): `a[i]=` with a higher index, and
   * more than this many repeated `a=` values, make an object with index keys instead of an array.
   */
  arrayLimit?: number;
}

export type ParsedQuery = Record<string, unknown>;

/** Parses `a[b]=1&c=2` into `{ a: { b: '1' }, c: '2' }` on a null-prototype-safe object. */
export function parseQuery(input: string, options: QueryOptions = {}): ParsedQuery {
  if (input === '') return {};
  return qs.parse(input, {
    depth: options.depth ?? 5,
    parameterLimit: options.parameterLimit ?? 1000,
    arrayLimit: options.arrayLimit ?? 1000,
    // __proto__ / constructor / prototype keys are dropped rather than merged (qs default:
    // allowPrototypes false), so `?__proto__[x]=1` cannot pollute Object.prototype.
    allowPrototypes: false,
    plainObjects: false,
  }) as ParsedQuery;
}
