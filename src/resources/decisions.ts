/**
 * @module resources/decisions
 * The checks of a resource's decision order (resources/resource), one function per step. Each
 * throws the HttpError its status calls for, or records its decision in the trace and returns.
 */
import { insufficientScope } from '../auth/scopes.js';
import { isThenable, type Caller } from '../auth/scheme.js';
import { HttpError, methodNotAllowed } from '../errors/http-error.js';
import { negotiate } from '../http/accepts.js';
import { assertUtf8, readRawBody } from '../http/body.js';
import { mediaTypeOf } from '../http/mime.js';
import { evaluatePreconditions, type PreconditionOutcome } from './conditional.js';
import { baseOf, validatorsOf } from './representation.js';
import type { ResourceContext, ResourceDeps, ResourceSpec, View } from './resource.js';

/** What the steps of one resource need, worked out once when its handler is built. */
export interface ResourceSetup<D, I> {
  spec: ResourceSpec<D, I>;
  deps: ResourceDeps;
  /** Methods the declaration supports, and the same as an `Allow` value. */
  supported: readonly string[];
  allowAll: string;
  /** Media types of the views, in the declaration's order. */
  offers: string[];
  /** Adds X-Roa-Trace. */
  development: boolean;
  cacheControl: string | undefined;
  bodyLimit: number;
}

/** 405 for a method the declaration does not support. */
export function allowMethod(s: ResourceSetup<unknown, unknown>, method: string, ctx: ResourceContext<unknown>): void {
  if (!s.supported.includes(method)) throw methodNotAllowed(method, s.allowAll);
  ctx.trace.push('method');
}

/**
 * Who is calling; bad credentials are a 401 on every method, reads and OPTIONS included.
 * Cached credentials answer without a promise: then nothing is returned to await (no extra turn
 * of the microtask queue on the hot path).
 */
export function authenticate(s: ResourceSetup<unknown, unknown>, ctx: ResourceContext<unknown>): PromiseLike<void> | undefined {
  const resolved = s.deps.authenticator.resolve(ctx.req);
  if (isThenable(resolved)) return resolved.then((caller) => authenticated(ctx, caller));
  authenticated(ctx, resolved);
  return undefined;
}

function authenticated(ctx: ResourceContext<unknown>, caller: Caller | undefined): void {
  ctx.caller = caller;
  ctx.trace.push(caller ? `auth:${caller.scheme}:${caller.role}` : 'auth:anonymous');
}

/** 401 when the method needs a caller and there is none; 403 when this caller may not (OPTIONS is answered to all). */
export function authorize(s: ResourceSetup<unknown, unknown>, method: string, ctx: ResourceContext<unknown>): void {
  if (method !== 'OPTIONS') {
    const permission = s.spec.permit(method, ctx.caller);
    if (permission === 'unauthenticated') throw s.deps.authenticator.unauthorized();
    if (permission === 'forbidden') throw forbidden(ctx.caller, method, s.spec.scopes);
  }
  ctx.trace.push('authz');
}

/**
 * The 403 for a caller the policy refused. `insufficient_scope` (RFC 6750 §3.1) only when the token
 * lacks the scope: a reader's token that carries the write scope is refused for the reader's role,
 * and a new token would not help.
 */
function forbidden(caller: Caller | undefined, method: string, scopes: { read: string; write: string } | undefined): HttpError {
  const scope = scopes === undefined ? undefined : method === 'GET' || method === 'HEAD' ? scopes.read : scopes.write;
  if (caller?.scopes != null && scope !== undefined && !caller.scopes.includes(scope)) return insufficientScope(scope);
  return new HttpError(403, `Your role may not ${method} here`, { code: 'ROA_ERR_FORBIDDEN' });
}

/**
 * `?format=` names a representation where `Accept` cannot be set: a link followed by a browser (the
 * HTML page's "as XML" link), as Django REST framework's `format` does. Same resource, same tags:
 * a write purges these URLs through the surrogate keys every representation carries.
 */
const FORMATS: Readonly<Record<string, string>> = { xml: 'application/xml', json: 'application/json', html: 'text/html' };

/** The media type `?format=` asks for on a GET or HEAD, undefined without one; 406 for a name not offered. */
function formatAsked(ctx: ResourceContext<unknown>, offers: readonly string[]): string | undefined {
  const url = ctx.req.url ?? '';
  const q = url.indexOf('?');
  if (q === -1 || !url.includes('format=', q)) return undefined;
  const format = ctx.req.query.format;
  if (format === undefined) return undefined;
  const type = typeof format === 'string' ? FORMATS[format] : undefined;
  if (type === undefined || !offers.includes(type)) {
    const names = Object.keys(FORMATS).filter((f) => offers.includes(FORMATS[f]!));
    throw new HttpError(406, `format must be one of ${names.join(', ')}`, { code: 'ROA_ERR_NOT_ACCEPTABLE', extensions: { acceptable: offers } });
  }
  return type;
}

/** The view to answer with (406 when the client accepts none); OPTIONS and DELETE send no representation. */
export function chooseView<D>(s: ResourceSetup<D, unknown>, method: string, ctx: ResourceContext<D>): View<D> {
  if (method === 'OPTIONS') return s.spec.views[0]!;
  const asked = method === 'GET' || method === 'HEAD' ? formatAsked(ctx as ResourceContext<unknown>, s.offers) : undefined;
  const chosen = asked ?? negotiate(ctx.req.headers.accept, s.offers);
  // A DELETE sends no representation, so never a 406; the view only says how to answer (a page: 303).
  if (method === 'DELETE') return s.spec.views[chosen === undefined ? 0 : s.offers.indexOf(chosen)]!;
  if (chosen === undefined) {
    throw new HttpError(406, `Acceptable representations: ${s.offers.join(', ')}`, { code: 'ROA_ERR_NOT_ACCEPTABLE', extensions: { acceptable: s.offers } });
  }
  const view = s.spec.views[s.offers.indexOf(chosen)]!;
  ctx.trace.push(`accept:${view.tag}`);
  return view;
}

/** 404 unless the record exists, or the method makes it (POST; PUT where the resource lets clients create). */
export function requireRecord<D>(s: ResourceSetup<D, unknown>, method: string, ctx: ResourceContext<D>): void {
  if (ctx.doc === undefined && method !== 'POST' && !(method === 'PUT' && (s.spec.canCreate?.(ctx) ?? false))) throw notFound();
}

/** 403 when a PUT or DELETE would change a record this caller does not own. */
export function requireOwner<D>(s: ResourceSetup<D, unknown>, method: string, ctx: ResourceContext<D>): void {
  const { spec } = s;
  if (ctx.doc !== undefined && (method === 'PUT' || method === 'DELETE') && spec.mayModify && !spec.mayModify(ctx.caller, ctx.doc)) {
    throw new HttpError(403, 'Only the owner or an admin may change this record', { code: 'ROA_ERR_NOT_OWNER' });
  }
  ctx.trace.push('owner');
}

/**
 * RFC 9110 §13.2.2 against the chosen view's validators: 412 when a precondition fails;
 * `not-modified` tells a GET or HEAD to answer 304. An If-Match tag of any view names the record.
 */
export function checkPreconditions<D>(s: ResourceSetup<D, unknown>, method: string, ctx: ResourceContext<D>, view: View<D>): PreconditionOutcome {
  const { spec } = s;
  const doc = ctx.doc;
  const current = doc === undefined ? undefined : validatorsOf(spec, doc, view, ctx.caller);
  const outcome = evaluatePreconditions(method, ctx.req.headers, current, (tags) =>
    doc !== undefined && tags.some((t) => baseOf(t) === spec.validators(doc).etag));
  ctx.trace.push(`precond:${outcome}`);
  if (outcome === 'failed') throw preconditionFailed();
  return outcome;
}

/** The body of a PUT or POST: 415 for a type the resource does not take, then 400/422 when it is malformed or invalid. */
export async function readInput<D, I>(s: ResourceSetup<D, I>, ctx: ResourceContext<D>): Promise<I> {
  const { spec, bodyLimit } = s;
  const { req, trace } = ctx;
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
  const raw = await readRawBody(req, { limit: bodyLimit });
  let parsed = format.parse(raw, req.headers['content-type']);
  if (isThenable(parsed)) parsed = await parsed;
  const input = spec.validate ? spec.validate(parsed) : (parsed as I);
  trace.push('valid');
  return input;
}

export function notFound(): HttpError {
  return new HttpError(404, 'No such resource', { code: 'ROA_ERR_NOT_FOUND' });
}

export function preconditionFailed(): HttpError {
  return new HttpError(412, 'The resource changed (or exists) since the validator you sent', { code: 'ROA_ERR_PRECONDITION_FAILED' });
}
