/**
 * @module resources/resource
 * Declarative resources with Webmachine's decision order, so every resource answers alike:
 * route → method known (405) → authenticated (401) → authorised (403) → acceptable (406) →
 * exists (404) → owner (403) → preconditions (412/304) → body type (415) → body valid (400/422) →
 * Idempotency-Key claimed (POST where the resource opts in: replay, 409, 422) → action.
 * GET/HEAD/OPTIONS, ETags, Cache-Control, Vary, Allow, Location and purging are derived from the
 * declaration; a resource only says how to load, validate and store its records.
 */
import type { Authenticator } from '../auth/authenticator.js';
import type { Caller } from '../auth/scheme.js';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { parseIdempotencyKey } from '../http/idempotency-key.js';
import type { WriteCondition } from '../storage/store.js';
import { answerOptions, createRecord, deleteRecord, replaceRecord, sendRepresentation } from './actions.js';
import {
  allowMethod, authenticate, authorize, checkPreconditions, chooseView, readInput, requireOwner, requireRecord, type ResourceSetup,
} from './decisions.js';
import type { IdempotencyKeys } from './idempotency.js';
import type { Permission } from './policy.js';
import type { PurgeTarget } from './purger.js';
import { cacheControlFor } from './representation.js';

/** One representation a resource can send (`application/xml`, `application/json`, ...). */
export interface View<D> {
  mediaType: string;
  /** Short suffix that makes the strong ETag differ per representation (RFC 9110 §8.8.3). */
  tag: string;
  render(doc: D, ctx: ResourceContext<D>): string;
  /** Set on a page for people (HTML): what differs from a data view (see PageTraits). */
  page?: PageTraits;
}

/**
 * A page shows who asks and what they may do (forms), so its ETag and caching depend on the caller,
 * it is told the response it belongs to (`ctx.shown`), and a write chosen with it answers
 * 303 See Other (RFC 9110 §15.4.4) instead of a representation, as a browser's form post expects.
 */
export interface PageTraits {
  /** The ETag suffix for this caller (instead of `tag`); no `-` in it (resources/representation baseOf). */
  tagFor(caller: Caller | undefined): string;
  /** Cache-Control for this caller, given the resource's. */
  cacheControl(resource: string | undefined, caller: Caller | undefined): string | undefined;
  /** Headers every page carries besides the representation's (Content-Security-Policy, ...), flat [name, value, …]. */
  headers: readonly string[];
  /** Where a DELETE chosen with this page redirects (the collection). */
  afterDelete: string;
  /** Renders an error of a request that chose this page (a 422 with the form again); false = the generic problem page. */
  problem?(err: unknown, ctx: ResourceContext<unknown>): boolean;
}

/** The response a page is part of: shown on it (status, main headers, the caller's Allow). */
export interface ShownResponse {
  status: number;
  /** Methods this caller may use here, as OPTIONS would answer. */
  allow: readonly string[];
  etag: string;
  cacheControl: string | undefined;
}

/** One request body format a resource accepts for PUT/POST. */
export interface BodyFormat {
  mediaType: string;
  /** Turns bytes into a value (the request's Content-Type given for its parameters, e.g. a boundary); throws HttpError 400 when malformed. */
  parse(raw: Buffer, contentType?: string): unknown;
}

/** What a write hands back for the response and for purging. */
export type WriteOutcome<D> =
  | { status: 'created' | 'replaced'; doc: D; location?: string }
  | { status: 'missing' | 'precondition-failed' };

export type { PurgeTarget } from './purger.js';

export interface ResourceContext<D> {
  req: Request;
  res: Response;
  caller: Caller | undefined;
  /** The loaded record (undefined when absent or not loaded yet). */
  doc: D | undefined;
  trace: string[];
  /** The view chosen (set once negotiated). */
  view?: View<D>;
  /** Set before a page view renders (PageTraits). */
  shown?: ShownResponse;
}

export interface ResourceSpec<D, I = unknown> {
  name: string;
  /** One line for the OpenAPI description (openapi/openapi-document); default the name. */
  summary?: string;
  /** Extra statuses per method (upper-case) for the OpenAPI description, beyond what the declaration implies. */
  statuses?: Partial<Record<string, number[]>>;
  /** URL patterns (Express syntax) that address this resource. */
  paths: string[];
  /** Representations for GET/HEAD and write responses; the first is the default. */
  views: View<D>[];
  /** Body formats accepted for PUT/POST. */
  bodies?: BodyFormat[];
  /** Body size limit in bytes (default 100 KiB). */
  bodyLimit?: number;
  /** Freshness of safe responses for caches (default public, 60 s). */
  cache?: { maxAge: number; sMaxAge?: number };
  /** OAuth scopes that reading and writing need (named in `insufficient_scope` challenges). */
  scopes?: { read: string; write: string };
  /** Role/scope policy per method. */
  permit(method: string, caller: Caller | undefined): Permission;
  /** May this caller replace or delete this record (ownership)? */
  mayModify?(caller: Caller | undefined, doc: D): boolean;
  /** Loads what the URL names; undefined = does not exist. */
  load(ctx: ResourceContext<D>): Promise<D | undefined>;
  /** Base validators of a record (the ETag without quotes/representation suffix). */
  validators(doc: D): { etag: string; lastModified: Date };
  /** For PUT to an absent record: may the client create it at this URL? false → 404. */
  canCreate?(ctx: ResourceContext<D>): boolean;
  /** Checks a parsed body; throws HttpError 422 with `errors` when invalid. */
  validate?(body: unknown): I;
  put?(ctx: ResourceContext<D>, input: I, cond: WriteCondition): Promise<WriteOutcome<D>>;
  /** POST creates a subordinate record (server-chosen URL); `created` says how to show and purge it. */
  post?(ctx: ResourceContext<D>, input: I): Promise<{ doc: unknown; location: string }>;
  created?: CreatedSpec<unknown>;
  /** POST honours `Idempotency-Key` (resources/idempotency): a retry with the same key replays the first answer. */
  idempotency?: IdempotencyKeys;
  delete?(ctx: ResourceContext<D>, cond: WriteCondition): Promise<'deleted' | 'missing' | 'precondition-failed'>;
  /** URLs and tags showing a record, purged from caches after a successful write. */
  purgeTargets?(doc: D): PurgeTarget;
  /** Surrogate keys (`xkey`) for a GET response. */
  surrogateKeys?(doc: D): string[];
  /** Extra headers for a GET response (e.g. `Link: <…>; rel="next"`). */
  headers?(doc: D, ctx: ResourceContext<D>): Record<string, string>;
}

/** How the record a POST created is represented and purged. */
export interface CreatedSpec<C> {
  views: View<C>[];
  validators(doc: C): { etag: string; lastModified: Date };
  purgeTargets?(doc: C): PurgeTarget;
}

export interface ResourceDeps {
  authenticator: Authenticator;
  purger?: { purge(target: PurgeTarget): Promise<void> };
  /** development: adds X-Roa-Trace. */
  env?: string;
}

const ORDER = ['HEAD', 'GET', 'OPTIONS', 'PUT', 'POST', 'DELETE'] as const;

/** The methods a declaration supports, in a stable order for `Allow`. */
export function supportedMethods(spec: ResourceSpec<unknown, unknown>): string[] {
  return ORDER.filter((m) => (m === 'PUT' ? !!spec.put : m === 'POST' ? !!spec.post : m === 'DELETE' ? !!spec.delete : true));
}

/**
 * Builds the request handler for a resource: the decision order of the module header, one step
 * (resources/decisions, resources/actions) per line of `run`.
 * @example
 *   app.all(spec.paths, resourceHandler(spec, { authenticator }))
 */
export function resourceHandler<D, I>(spec: ResourceSpec<D, I>, deps: ResourceDeps) {
  const supported = supportedMethods(spec as ResourceSpec<unknown, unknown>);
  const s: ResourceSetup<D, I> = {
    spec,
    deps,
    supported,
    allowAll: supported.join(', '),
    offers: spec.views.map((v) => v.mediaType),
    development: (deps.env ?? 'development') === 'development',
    cacheControl: cacheControlFor(spec),
    bodyLimit: spec.bodyLimit ?? 100 * 1024,
  };

  const run = async (ctx: ResourceContext<D>): Promise<void> => {
    const method = ctx.req.method ?? 'GET';
    ctx.trace.push('route');
    allowMethod(s, method, ctx); // 405
    const pending = authenticate(s, ctx); // 401 for bad credentials
    if (pending !== undefined) await pending;
    authorize(s, method, ctx); // 401, 403
    // Only read where the resource opted in: a POST without the header pays one field lookup.
    const idempotencyKey = method === 'POST' && spec.idempotency !== undefined ? parseIdempotencyKey(ctx.req.headers['idempotency-key']) : undefined; // 400
    const view = chooseView(s, method, ctx); // 406
    ctx.view = view;
    ctx.doc = await spec.load(ctx);
    ctx.trace.push(ctx.doc === undefined ? 'exists:no' : 'exists:yes');
    if (method === 'OPTIONS') return answerOptions(s, ctx);
    requireRecord(s, method, ctx); // 404
    requireOwner(s, method, ctx); // 403
    const outcome = checkPreconditions(s, method, ctx, view); // 412, or 304 below
    if (method === 'GET' || method === 'HEAD') return sendRepresentation(s, method, ctx, view, outcome);
    if (method === 'DELETE') return deleteRecord(s, ctx);
    const input = await readInput(s, ctx); // 415, then 400/422
    if (method === 'POST') {
      if (idempotencyKey === undefined) return createRecord(s, ctx, view, input);
      return spec.idempotency!.run(ctx as ResourceContext<unknown>, idempotencyKey, () => createRecord(s, ctx, view, input), s.development); // 409, 422
    }
    return replaceRecord(s, ctx, view, input);
  };

  return (req: Request, res: Response, next: NextFunction): void => {
    const ctx: ResourceContext<D> = { req, res, caller: undefined, doc: undefined, trace: [], view: undefined, shown: undefined };
    run(ctx).then(
      () => undefined,
      (err: unknown) => {
        if (s.development && !res.headersSent) res.setHeader('X-Roa-Trace', ctx.trace.concat('error').join(', '));
        if (!res.headersSent) res.setHeader('Vary', 'Accept');
        if (!res.headersSent && ctx.view?.page?.problem?.(err, ctx as ResourceContext<unknown>) === true) return;
        next(err);
      },
    );
  };
}
