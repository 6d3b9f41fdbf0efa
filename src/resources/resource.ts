/**
 * @module resources/resource
 * Declarative resources with Webmachine's decision order, so every resource answers alike:
 * route → method known (405) → authenticated (401) → authorised (403) → acceptable (406) →
 * exists (404) → owner (403) → preconditions (412/304) → body type (415) → body valid (400/422) → action.
 * GET/HEAD/OPTIONS, ETags, Cache-Control, Vary, Allow, Location and purging are derived from the
 * declaration; a resource only says how to load, validate and store its records.
 */
import type { Authenticator } from '../auth/authenticator.js';
import { isThenable, type Caller } from '../auth/scheme.js';
import { HttpError, methodNotAllowed } from '../errors/http-error.js';
import { negotiate } from '../http/accepts.js';
import { assertUtf8, readRawBody } from '../http/body.js';
import { mediaTypeOf } from '../http/mime.js';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import type { WriteCondition } from '../storage/store.js';
import { evaluatePreconditions, parseEtagList } from './conditional.js';
import type { Permission } from './policy.js';

/** One representation a resource can send (`application/xml`, `application/json`, ...). */
export interface View<D> {
  mediaType: string;
  /** Short suffix that makes the strong ETag differ per representation (RFC 9110 §8.8.3). */
  tag: string;
  render(doc: D, ctx: ResourceContext<D>): string;
}

/** One request body format a resource accepts for PUT/POST. */
export interface BodyFormat {
  mediaType: string;
  /** Turns bytes into a value; throws HttpError 400 when malformed. */
  parse(raw: Buffer): unknown;
}

/** What a write hands back for the response and for purging. */
export type WriteOutcome<D> =
  | { status: 'created' | 'replaced'; doc: D; location?: string }
  | { status: 'missing' | 'precondition-failed' };

export interface PurgeTarget {
  urls: string[];
  tags: string[];
}

export interface ResourceContext<D> {
  req: Request;
  res: Response;
  caller: Caller | undefined;
  /** The loaded record (undefined when absent or not loaded yet). */
  doc: D | undefined;
  trace: string[];
}

export interface ResourceSpec<D, I = unknown> {
  name: string;
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
  created?: CreatedSpec<any>;
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
 * Builds the request handler for a resource.
 * @example
 *   app.all(spec.paths, resourceHandler(spec, { authenticator }))
 */
export function resourceHandler<D, I>(spec: ResourceSpec<D, I>, deps: ResourceDeps) {
  const supported = supportedMethods(spec as ResourceSpec<unknown, unknown>);
  const allowAll = supported.join(', ');
  const offers = spec.views.map((v) => v.mediaType);
  const development = (deps.env ?? 'development') === 'development';
  const cacheControl = cacheControlFor(spec);
  const bodyLimit = spec.bodyLimit ?? 100 * 1024;

  const run = async (ctx: ResourceContext<D>): Promise<void> => {
    const { req, res, trace } = ctx;
    const method = req.method ?? 'GET';
    trace.push('route');
    if (!supported.includes(method)) {
      throw methodNotAllowed(method, allowAll);
    }
    trace.push('method');
    // Credentials are checked on every method, OPTIONS included: bad ones are a 401 even for reads.
    // Cached credentials answer without a promise: no await (and no extra turn of the microtask queue) then.
    const resolved = deps.authenticator.resolve(req);
    ctx.caller = isThenable(resolved) ? await resolved : resolved;
    trace.push(ctx.caller ? `auth:${ctx.caller.scheme}:${ctx.caller.role}` : 'auth:anonymous');
    if (method !== 'OPTIONS') {
      const permission = spec.permit(method, ctx.caller);
      if (permission === 'unauthenticated') throw deps.authenticator.unauthorized();
      if (permission === 'forbidden') throw forbidden(ctx.caller, method, spec.scopes);
    }
    trace.push('authz');
    let view = spec.views[0]!;
    if (method !== 'OPTIONS' && method !== 'DELETE') {
      const chosen = negotiate(req.headers.accept, offers);
      if (chosen === undefined) {
        throw new HttpError(406, `Acceptable representations: ${offers.join(', ')}`, { code: 'ROA_ERR_NOT_ACCEPTABLE', extensions: { acceptable: offers } });
      }
      view = spec.views[offers.indexOf(chosen)]!;
      trace.push(`accept:${view.tag}`);
    }
    ctx.doc = await spec.load(ctx);
    trace.push(ctx.doc === undefined ? 'exists:no' : 'exists:yes');

    if (method === 'OPTIONS') {
      if (development) res.setHeader('X-Roa-Trace', trace.join(', '));
      res.statusCode = 200;
      res.setHeader('Allow', allowedFor(spec, supported, ctx).join(', '));
      res.setHeader('Content-Length', '0');
      res.end();
      return;
    }
    if (ctx.doc === undefined && method !== 'POST' && !(method === 'PUT' && (spec.canCreate?.(ctx) ?? false))) {
      throw new HttpError(404, 'No such resource', { code: 'ROA_ERR_NOT_FOUND' });
    }
    if (ctx.doc !== undefined && (method === 'PUT' || method === 'DELETE') && spec.mayModify && !spec.mayModify(ctx.caller, ctx.doc)) {
      throw new HttpError(403, 'Only the owner or an admin may change this record', { code: 'ROA_ERR_NOT_OWNER' });
    }
    trace.push('owner');

    const current = ctx.doc === undefined ? undefined : validatorsOf(spec, ctx.doc, view);
    const outcome = evaluatePreconditions(method, req.headers, current, (tags) =>
      ctx.doc !== undefined && tags.some((t) => baseOf(t) === spec.validators(ctx.doc!).etag));
    trace.push(`precond:${outcome}`);
    if (outcome === 'failed') throw preconditionFailed();

    if (method === 'GET' || method === 'HEAD') {
      const doc = ctx.doc!;
      // One writeHead with every header: cheaper than a setHeader per field on the hottest path.
      const headers = representationHeaders(spec, doc, view, cacheControl);
      if (spec.headers) for (const [k, v] of Object.entries(spec.headers(doc, ctx))) headers.push(k, v);
      if (development) headers.push('X-Roa-Trace', trace.join(', '));
      if (outcome === 'not-modified') {
        // RFC 9110 §15.4.5: a 304 carries the validators and caching fields, not Content-Type.
        res.writeHead(304, withoutField(headers, 'Content-Type'));
        res.end();
        return;
      }
      const body = view.render(doc, ctx);
      headers.push('Content-Length', String(Buffer.byteLength(body)));
      res.writeHead(200, headers);
      if (method === 'HEAD') res.end();
      else res.end(body);
      return;
    }

    const cond = writeCondition(req);
    if (method === 'DELETE') {
      const result = await spec.delete!(ctx, cond);
      trace.push(`action:${result}`);
      if (result === 'missing') throw new HttpError(404, 'No such resource', { code: 'ROA_ERR_NOT_FOUND' });
      if (result === 'precondition-failed') throw preconditionFailed();
      await purge(deps, spec, ctx.doc!);
      if (development) res.setHeader('X-Roa-Trace', trace.join(', '));
      res.statusCode = 204;
      res.end();
      return;
    }

    // PUT or POST: body type (415), then body validity (400/422), then the action.
    const input = await readInput(spec, req, bodyLimit, trace);
    if (method === 'POST') {
      const created = await spec.post!(ctx, input);
      trace.push('action:created');
      const sub = spec.created!;
      if (deps.purger && sub.purgeTargets) await deps.purger.purge(sub.purgeTargets(created.doc));
      const subView = sub.views[spec.views.indexOf(view)] ?? sub.views[0]!;
      if (development) res.setHeader('X-Roa-Trace', trace.join(', '));
      sendWritten(res, sub, created.doc, subView, ctx as ResourceContext<any>, 201, created.location);
      return;
    }
    const result = await spec.put!(ctx, input, cond);
    trace.push(`action:${result.status}`);
    if (result.status === 'missing') throw new HttpError(404, 'No such resource', { code: 'ROA_ERR_NOT_FOUND' });
    if (result.status === 'precondition-failed') throw preconditionFailed();
    if (result.status !== 'created' && result.status !== 'replaced') throw new Error('unreachable write outcome');
    await purge(deps, spec, result.doc);
    if (development) res.setHeader('X-Roa-Trace', trace.join(', '));
    sendWritten(res, spec, result.doc, view, ctx, result.status === 'created' ? 201 : 200, result.status === 'created' ? result.location : undefined);
  };

  return (req: Request, res: Response, next: NextFunction): void => {
    const ctx: ResourceContext<D> = { req, res, caller: undefined, doc: undefined, trace: [] };
    run(ctx).then(
      () => undefined,
      (err: unknown) => {
        if (development && !res.headersSent) res.setHeader('X-Roa-Trace', ctx.trace.concat('error').join(', '));
        if (!res.headersSent) res.setHeader('Vary', 'Accept');
        next(err);
      },
    );
  };
}

function cacheControlFor(spec: ResourceSpec<never, never> | ResourceSpec<any, any>): string | undefined {
  // Only views anonymous callers may read are cacheable by a shared cache.
  if (spec.permit('GET', undefined) !== 'allowed') return undefined;
  const maxAge = spec.cache?.maxAge ?? 60;
  const sMaxAge = spec.cache?.sMaxAge;
  return `public, max-age=${maxAge}` + (sMaxAge !== undefined ? `, s-maxage=${sMaxAge}` : '');
}

function quotedEtag(base: string, view: View<unknown>): string {
  return `"${base}-${view.tag}"`;
}

/** The record's base tag inside a representation's ETag: `"abc-x"` → `abc`. */
function baseOf(tag: string): string {
  const inner = tag.replace(/^W\//, '').slice(1, -1);
  const dash = inner.lastIndexOf('-');
  return dash === -1 ? inner : inner.slice(0, dash);
}

function validatorsOf<D>(spec: ResourceSpec<D, any>, doc: D, view: View<D>) {
  const v = spec.validators(doc);
  return { etag: quotedEtag(v.etag, view as View<unknown>), lastModified: v.lastModified };
}

/** Headers of a representation, as a flat [name, value, ...] list for writeHead. */
function representationHeaders<D>(spec: ResourceSpec<D, any>, doc: D, view: View<D>, cacheControl: string | undefined): string[] {
  const v = spec.validators(doc);
  const headers = [
    'Content-Type', view.mediaType + '; charset=utf-8',
    'ETag', quotedEtag(v.etag, view as View<unknown>),
    'Last-Modified', httpDate(v.lastModified),
    'Vary', 'Accept',
  ];
  if (cacheControl !== undefined) headers.push('Cache-Control', cacheControl);
  if (spec.surrogateKeys) {
    const keys = spec.surrogateKeys(doc).join(' ');
    headers.push('xkey', keys, 'Surrogate-Key', keys);
  }
  return headers;
}

// IMF-fixdate strings of recent timestamps: records are read far more often than they change,
// and Date#toUTCString is one of the dearer steps of a GET.
const dates = new Map<number, string>();

function httpDate(date: Date): string {
  const ms = date.getTime();
  let text = dates.get(ms);
  if (text === undefined) {
    if (dates.size >= 1024) dates.clear();
    text = date.toUTCString();
    dates.set(ms, text);
  }
  return text;
}

function sendWritten<D>(res: Response, spec: { validators(doc: D): { etag: string; lastModified: Date } }, doc: D, view: View<D>, ctx: ResourceContext<D>, status: number, location: string | undefined): void {
  const v = spec.validators(doc);
  const body = view.render(doc, ctx);
  res.statusCode = status;
  if (location !== undefined) {
    res.setHeader('Location', location);
    res.setHeader('Content-Location', location);
  }
  res.setHeader('Content-Type', view.mediaType + '; charset=utf-8');
  res.setHeader('ETag', quotedEtag(v.etag, view as View<unknown>));
  res.setHeader('Last-Modified', httpDate(v.lastModified));
  res.setHeader('Vary', 'Accept');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

function allowedFor<D>(spec: ResourceSpec<D, any>, supported: readonly string[], ctx: ResourceContext<D>): string[] {
  return supported.filter((m) => {
    if (m === 'OPTIONS') return true;
    if (spec.permit(m, ctx.caller) !== 'allowed') return false;
    if ((m === 'PUT' || m === 'DELETE') && ctx.doc !== undefined && spec.mayModify) return spec.mayModify(ctx.caller, ctx.doc);
    if (m === 'PUT' && ctx.doc === undefined) return spec.canCreate?.(ctx) ?? false;
    if (m === 'DELETE' && ctx.doc === undefined) return false;
    return true;
  });
}

/** If-Match / If-None-Match as a store-level compare-and-swap condition (atomic with the write). */
function writeCondition(req: Request): WriteCondition {
  const cond: WriteCondition = {};
  const ifMatch = parseEtagList(req.headers['if-match']);
  if (ifMatch === '*') cond.ifMatch = '*';
  else if (ifMatch !== undefined) cond.ifMatch = ifMatch.filter((t) => !t.startsWith('W/')).map(baseOf);
  if (parseEtagList(req.headers['if-none-match']) === '*') cond.ifNoneMatch = '*';
  return cond;
}

async function readInput<D, I>(spec: ResourceSpec<D, I>, req: Request, limit: number, trace: string[]): Promise<I> {
  const type = mediaTypeOf(req.headers['content-type']);
  const format = spec.bodies?.find((b) => b.mediaType === type);
  if (format === undefined) {
    const accepted = (spec.bodies ?? []).map((b) => b.mediaType);
    throw new HttpError(415, type === '' ? `A body of type ${accepted.join(', ')} is required` : `Unsupported Content-Type ${type}; use ${accepted.join(', ')}`, {
      code: 'ROA_ERR_UNSUPPORTED_MEDIA_TYPE',
      headers: { 'Accept-Post': accepted.join(', ') },
    });
  }
  trace.push('ctype');
  assertUtf8(req.headers['content-type']);
  const raw = await readRawBody(req, { limit });
  const parsed = format.parse(raw);
  const input = spec.validate ? spec.validate(parsed) : (parsed as I);
  trace.push('valid');
  return input;
}

async function purge<D>(deps: ResourceDeps, spec: ResourceSpec<D, any>, doc: D): Promise<void> {
  if (!deps.purger || !spec.purgeTargets) return;
  // Read-your-writes: the response waits for the caches (bounded by the purger's time-out).
  await deps.purger.purge(spec.purgeTargets(doc));
}

function preconditionFailed(): HttpError {
  return new HttpError(412, 'The resource changed (or exists) since the validator you sent', { code: 'ROA_ERR_PRECONDITION_FAILED' });
}

function forbidden(caller: Caller | undefined, method: string, scopes: { read: string; write: string } | undefined): HttpError {
  const scope = scopes === undefined ? undefined : method === 'GET' || method === 'HEAD' ? scopes.read : scopes.write;
  // insufficient_scope (RFC 6750 §3.1) only when the token lacks the scope: a reader's token that
  // carries articles:write is refused for the reader's role, and a new token would not help.
  if (caller?.scopes != null && scope !== undefined && !caller.scopes.includes(scope)) {
    return new HttpError(403, `This token lacks the ${scope} scope`, {
      code: 'ROA_ERR_INSUFFICIENT_SCOPE',
      headers: { 'WWW-Authenticate': `Bearer realm="roa", error="insufficient_scope", scope="${scope}"` },
    });
  }
  return new HttpError(403, `Your role may not ${method} here`, { code: 'ROA_ERR_FORBIDDEN' });
}

/** A flat [name, value, …] header list without the fields named `name` (same case as written). */
function withoutField(headers: string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2) if (headers[i] !== name) out.push(headers[i]!, headers[i + 1]!);
  return out;
}
