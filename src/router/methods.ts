/**
 * @module router/methods
 * The HTTP methods routes can be declared for, as lower-case names (`app.get`, `app['m-search']`).
 */
import { METHODS } from 'node:http';

export const ROUTE_METHODS: readonly string[] = METHODS.map((m) => m.toLowerCase());

const LOWER = new Map<string, string>(METHODS.map((m) => [m, m.toLowerCase()]));

/** `GET` → `get` without allocating a string per request for the known methods. */
export function lowerMethod(method: string): string {
  return LOWER.get(method) ?? method.toLowerCase();
}
