/**
 * @module router/layer
 * One entry of a router's stack: a path (compiled once) and either a route or a middleware.
 */
import { HttpError } from '../errors/http-error.js';
import { compilePath, simplePattern, type PathKey, type RoutePath, type SimplePattern } from './path.js';
import type { Handler } from './handler.js';
import type { Route } from './route.js';

export interface LayerMatch {
  /** The part of the path the layer consumed (what a mount strips). */
  path: string;
  params: Record<string, string | undefined>;
}

export interface LayerOptions {
  sensitive: boolean;
  strict: boolean;
  end: boolean;
}

export class Layer {
  readonly handle: Handler;
  readonly route: Route | undefined;
  readonly regexp: RegExp;
  readonly keys: PathKey[];
  /** Set when the matcher can index this layer without its regex. */
  readonly simple: SimplePattern | undefined;
  /** `use('/')`: matches every path, consumes nothing. */
  private readonly fastSlash: boolean;
  /** `'*'`: matches every path, captured as param 0. */
  private readonly fastStar: boolean;

  constructor(path: RoutePath, options: LayerOptions, handle: Handler, route?: Route) {
    this.handle = handle;
    this.route = route;
    const compiled = compilePath(path, options);
    this.regexp = compiled.regexp;
    this.keys = compiled.keys;
    this.fastSlash = path === '/' && !options.end;
    this.fastStar = path === '*';
    this.simple = options.end ? simplePattern(path, options.sensitive) : undefined;
  }

  /** Runs the regex; undefined when it does not match. Throws a 400 HttpError for a malformed escape. */
  match(path: string): LayerMatch | undefined {
    if (this.fastSlash) return { path: '', params: {} };
    if (this.fastStar) return { path, params: { 0: decodeParam(path) } };
    const m = this.regexp.exec(path);
    if (m === null) return undefined;
    const params: Record<string, string | undefined> = {};
    for (let i = 1; i < m.length; i++) {
      const key = this.keys[i - 1];
      const name = key ? key.name : i - 1;
      const value = decodeParam(m[i]);
      // A later alternative that did not take part must not erase a value already found.
      if (value !== undefined || !Object.prototype.hasOwnProperty.call(params, name)) params[name] = value;
    }
    return { path: m[0], params };
  }
}

/** Percent-decodes a captured value; a malformed escape is the client's error (400), never a crash. */
export function decodeParam(value: string | undefined): string | undefined {
  if (value === undefined || value.length === 0 || value.indexOf('%') === -1) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw new HttpError(400, `Failed to decode param '${value.slice(0, 100)}'`, { code: 'ROA_ERR_BAD_PARAM' });
  }
}
