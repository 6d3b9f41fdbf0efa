/**
 * @module resources/actions
 * The last step of a resource's decision order: what each method does once every check passed —
 * answer OPTIONS, send the representation, or write (then purge caches and answer).
 */
import type { WriteCondition } from '../storage/store.js';
import { parseEtagList, type PreconditionOutcome } from './conditional.js';
import { notFound, preconditionFailed, type ResourceSetup } from './decisions.js';
import { pathnameOf } from '../http/request.js';
import { baseOf, quotedEtag, representationHeaders, sendSeeOther, sendWritten, withoutField } from './representation.js';
import type { ResourceContext, ResourceSpec, View } from './resource.js';

/** OPTIONS: 200 with the methods this caller may use on this record in `Allow`. */
export function answerOptions<D>(s: ResourceSetup<D, unknown>, ctx: ResourceContext<D>): void {
  const { res } = ctx;
  if (s.development) res.setHeader('X-Roa-Trace', ctx.trace.join(', '));
  res.statusCode = 200;
  res.setHeader('Allow', allowedFor(s.spec, s.supported, ctx).join(', '));
  res.setHeader('Content-Length', '0');
  res.end();
}

/** The methods this caller may use on this record (`Allow` of OPTIONS, and of a page). */
export function allowedFor<D>(spec: ResourceSpec<D, unknown>, supported: readonly string[], ctx: ResourceContext<D>): string[] {
  return supported.filter((m) => {
    if (m === 'OPTIONS') return true;
    if (spec.permit(m, ctx.caller) !== 'allowed') return false;
    if ((m === 'PUT' || m === 'DELETE') && ctx.doc !== undefined && spec.mayModify) return spec.mayModify(ctx.caller, ctx.doc);
    if (m === 'PUT' && ctx.doc === undefined) return spec.canCreate?.(ctx) ?? false;
    if (m === 'DELETE' && ctx.doc === undefined) return false;
    return true;
  });
}

/** GET or HEAD: the record in the chosen view, or 304 when the client's copy is current. */
export function sendRepresentation<D>(s: ResourceSetup<D, unknown>, method: string, ctx: ResourceContext<D>, view: View<D>, outcome: PreconditionOutcome): void {
  const { spec } = s;
  const { res } = ctx;
  const doc = ctx.doc!;
  // One writeHead with every header: cheaper than a setHeader per field on the hottest path.
  const { page } = view;
  const cacheControl = page === undefined ? s.cacheControl : page.cacheControl(s.cacheControl, ctx.caller);
  const headers = representationHeaders(spec, doc, view, cacheControl, ctx.caller);
  if (spec.headers) for (const [k, v] of Object.entries(spec.headers(doc, ctx))) headers.push(k, v);
  if (page !== undefined) {
    // A page shows the response it is part of (PageTraits).
    headers.push(...page.headers);
    ctx.shown = { status: 200, allow: allowedFor(spec, s.supported, ctx), etag: quotedEtag(spec.validators(doc).etag, view as View<unknown>, ctx.caller), cacheControl };
  }
  if (s.development) headers.push('X-Roa-Trace', ctx.trace.join(', '));
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
}

/** DELETE: 204 once the store removed the record and caches forgot it. */
export async function deleteRecord<D>(s: ResourceSetup<D, unknown>, ctx: ResourceContext<D>): Promise<void> {
  const result = await s.spec.delete!(ctx, writeCondition(ctx));
  ctx.trace.push(`action:${result}`);
  if (result === 'missing') throw notFound();
  if (result === 'precondition-failed') throw preconditionFailed();
  await purge(s, ctx.doc!);
  if (s.development) ctx.res.setHeader('X-Roa-Trace', ctx.trace.join(', '));
  const page = ctx.view?.page;
  if (page !== undefined) return sendSeeOther(ctx.res, page.afterDelete);
  ctx.res.statusCode = 204;
  ctx.res.end();
}

/** POST: 201 with the subordinate record the resource created, at its new URL. */
export async function createRecord<D, I>(s: ResourceSetup<D, I>, ctx: ResourceContext<D>, view: View<D>, input: I): Promise<void> {
  const { spec, deps } = s;
  const created = await spec.post!(ctx, input);
  ctx.trace.push('action:created');
  const sub = spec.created!;
  if (deps.purger && sub.purgeTargets) await deps.purger.purge(sub.purgeTargets(created.doc));
  const subView = sub.views[spec.views.indexOf(view)] ?? sub.views[0]!;
  if (s.development) ctx.res.setHeader('X-Roa-Trace', ctx.trace.join(', '));
  if (view.page !== undefined) return sendSeeOther(ctx.res, created.location);
  sendWritten(ctx.res, sub, created.doc, subView, ctx as ResourceContext<unknown>, 201, created.location);
}

/** PUT: 201 when it created the record, 200 when it replaced it, compare-and-swap on the client's validators. */
export async function replaceRecord<D, I>(s: ResourceSetup<D, I>, ctx: ResourceContext<D>, view: View<D>, input: I): Promise<void> {
  const result = await s.spec.put!(ctx, input, writeCondition(ctx));
  ctx.trace.push(`action:${result.status}`);
  if (result.status === 'missing') throw notFound();
  if (result.status === 'precondition-failed') throw preconditionFailed();
  if (result.status !== 'created' && result.status !== 'replaced') throw new Error('unreachable write outcome');
  await purge(s, result.doc);
  if (s.development) ctx.res.setHeader('X-Roa-Trace', ctx.trace.join(', '));
  const created = result.status === 'created';
  if (view.page !== undefined) return sendSeeOther(ctx.res, created && result.location !== undefined ? result.location : pathnameOf(ctx.req.originalUrl || ctx.req.url || '/'));
  sendWritten(ctx.res, s.spec, result.doc, view, ctx, created ? 201 : 200, created ? result.location : undefined);
}

/** If-Match / If-None-Match as a store-level compare-and-swap condition (atomic with the write). */
function writeCondition(ctx: ResourceContext<unknown>): WriteCondition {
  const { headers } = ctx.req;
  const cond: WriteCondition = {};
  const ifMatch = parseEtagList(headers['if-match']);
  if (ifMatch === '*') cond.ifMatch = '*';
  else if (ifMatch !== undefined) cond.ifMatch = ifMatch.filter((t) => !t.startsWith('W/')).map(baseOf);
  if (parseEtagList(headers['if-none-match']) === '*') cond.ifNoneMatch = '*';
  return cond;
}

async function purge<D>(s: ResourceSetup<D, unknown>, doc: D): Promise<void> {
  const { deps, spec } = s;
  if (!deps.purger || !spec.purgeTargets) return;
  // Read-your-writes: the response waits for the caches (bounded by the purger's time-out).
  await deps.purger.purge(spec.purgeTargets(doc));
}
