/**
 * @module router/methods
 * The HTTP methods routes can be declared for, as lower-case names (`app.get`, `app['m-search']`).
 */
import { METHODS } from 'node:http';

export const ROUTE_METHODS: readonly string[] = METHODS.map((m) => m.toLowerCase());
