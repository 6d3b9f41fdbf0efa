/**
 * @module openapi/route-inventory
 * The routes an app's router answers, found by walking its stack (routes, and routers mounted at
 * the root): what test/openapi compares with the description, so an undocumented route fails it.
 */
import type { Layer } from '../router/layer.js';
import type { RouterCore } from '../router/router.js';
import { openApiPath } from './openapi-document.js';

/** The methods a path answers (upper-case, HEAD with GET); `all` when a route takes every method. */
export interface RouteEntry {
  path: string;
  methods: Set<string>;
  all: boolean;
}

/**
 * Every route path of `router` in OpenAPI form (`/article/{key}`), with its methods. Middleware
 * that answers by itself (the probes, metrics) is invisible here; openapi/operational-endpoints lists it.
 * Throws for a router mounted under a prefix (its layer does not keep the prefix to name paths by).
 * @example
 *   routeInventory(service.app.router).get('/articles')?.methods
 */
export function routeInventory(router: Pick<RouterCore, 'stack'>): Map<string, RouteEntry> {
  const out = new Map<string, RouteEntry>();
  walk(router.stack, out);
  return out;
}

function walk(stack: readonly Layer[], out: Map<string, RouteEntry>): void {
  for (const layer of stack) {
    const route = layer.route;
    if (route !== undefined) {
      for (const p of Array.isArray(route.path) ? route.path : [route.path]) {
        if (typeof p !== 'string') throw new Error(`route inventory: a regular-expression route (${String(p)}) cannot be described`);
        const path = openApiPath(p).path;
        const entry = out.get(path) ?? { path, methods: new Set<string>(), all: false };
        for (const m of route.allowedMethods()) entry.methods.add(m);
        if (route.methods._all === true) entry.all = true;
        out.set(path, entry);
      }
      continue;
    }
    const nested = (layer.handle as unknown as { stack?: Layer[] }).stack;
    if (!Array.isArray(nested)) continue;
    if (layer.match('/')?.path !== '') throw new Error('route inventory: a router mounted under a path prefix is not supported');
    walk(nested, out);
  }
}
