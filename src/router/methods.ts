/**
 * @module router/methods
 * The HTTP methods routes can be declared for, as lower-case names (`app.get`, `app['m-search']`).
 */
import { METHODS } from 'node:http';

export const ROUTE_METHODS: readonly string[] = METHODS.map((m) => m.toLowerCase());

const LOWER: Record<string, string> = Object.create(null) as Record<string, string>;
for (const m of METHODS) LOWER[m] = m.toLowerCase();

/** `GET` → `get` without allocating a string per request for the known methods. */
export function lowerMethod(method: string): string {
  return LOWER[method] ?? method.toLowerCase();
}
