/**
 * @module openapi/operational-endpoints
 * The endpoints that are not resources or OAuth: the probes and metrics (middleware, so no router
 * walk finds them), this description itself, and the browsable API's sign-in link and stylesheet.
 * test/openapi probes each one on a running service.
 */

/** One answer of an operational endpoint. */
export interface OperationalResponse {
  description: string;
  /** Media type of the body; none for a bodiless answer. */
  mediaType?: string;
}

export interface OperationalEndpoint {
  path: string;
  /** GET implies HEAD: every one of them answers both. */
  methods: readonly ('GET' | 'HEAD')[];
  summary: string;
  responses: Readonly<Record<number, OperationalResponse>>;
  /** Answered by a middleware ahead of the router (true), or a route the router walk sees. */
  middleware: boolean;
}

import { SIGN_IN_PATH } from '../html/sign-in.js';
import { STYLESHEET_PATH } from '../html/stylesheet.js';

const PROBE_JSON = 'application/json';
const PROBLEM = 'application/problem+json';

export const OPERATIONAL_ENDPOINTS: readonly OperationalEndpoint[] = [
  {
    path: '/healthz',
    methods: ['GET', 'HEAD'],
    summary: 'Liveness: the process answers (no authentication, never cached, other methods 405)',
    responses: { 200: { description: 'Alive', mediaType: PROBE_JSON }, 405: { description: 'Method Not Allowed', mediaType: PROBLEM } },
    middleware: true,
  },
  {
    path: '/readyz',
    methods: ['GET', 'HEAD'],
    summary: 'Readiness: the database, Redis when configured and the nonce store answer, and not shutting down',
    responses: {
      200: { description: 'Ready', mediaType: PROBE_JSON },
      405: { description: 'Method Not Allowed', mediaType: PROBLEM },
      503: { description: 'Not ready: the failed checks, or shutting down', mediaType: PROBE_JSON },
    },
    middleware: true,
  },
  {
    path: '/metrics',
    methods: ['GET', 'HEAD'],
    summary: 'Prometheus text exposition, for the --metrics-allow addresses only',
    responses: {
      200: { description: 'The metrics', mediaType: 'text/plain; version=0.0.4; charset=utf-8' },
      403: { description: 'The client address is not in --metrics-allow', mediaType: PROBLEM },
      405: { description: 'Method Not Allowed', mediaType: PROBLEM },
    },
    middleware: true,
  },
  {
    path: '/openapi.json',
    methods: ['GET', 'HEAD'],
    summary: 'This OpenAPI 3.1 description',
    responses: { 200: { description: 'The description', mediaType: 'application/json' } },
    middleware: false,
  },
  {
    path: SIGN_IN_PATH,
    methods: ['GET', 'HEAD'],
    summary: 'Sign in to the browsable API (?next=/local/path): 401 with a Basic challenge until the browser sends valid credentials, then 303 to next',
    responses: {
      303: { description: 'Signed in: back to next (a local path, else /articles)' },
      401: { description: 'The Basic challenge: the browser asks for a name and password', mediaType: 'text/html' },
      403: { description: 'Production over plain HTTP: no password is asked for', mediaType: PROBLEM },
    },
    middleware: false,
  },
  {
    path: STYLESHEET_PATH,
    methods: ['GET', 'HEAD'],
    summary: 'The stylesheet of the HTML pages; the path changes with its content, so it is cached for a year',
    responses: { 200: { description: 'The stylesheet', mediaType: 'text/css' }, 304: { description: 'Not Modified (If-None-Match)' } },
    middleware: true,
  },
];
