/**
 * @module html/problem-page
 * RFC 9457 problem details as an HTML page, for clients that prefer HTML (browsers): the same
 * status, headers and members as the JSON and XML forms, shown to a person.
 */
import { negotiate } from '../http/accepts.js';
import { prepareErrorResponse, problemFromError, type FieldError, type ProblemOptions } from '../errors/problem.js';
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { h } from './escape.js';
import { renderPage, sendPage, type PageCaller } from './page.js';

// The problem offers of errors/problem with HTML last: a browser's Accept (text/html at 1,
// application/xml at 0.9) picks HTML; `*/*`, none, or an API client's Accept keep JSON or XML.
const OFFERS = ['application/problem+json', 'application/json', 'application/problem+xml', 'application/xml', 'text/html'];

/** True when the client ranks HTML above every problem format (a browser). */
export function prefersHtml(accept: string | undefined): boolean {
  return negotiate(accept, OFFERS) === 'text/html';
}

export interface ProblemPageOptions extends ProblemOptions {
  caller?: PageCaller | undefined;
  /** More content after the problem (already HTML): the form to correct, a link to the current version. */
  more?: string;
  signIn?: string | undefined;
}

/** The page for `err`: status and title, the detail, each field's error, then `more`. */
export function renderProblemPage(err: unknown, options: ProblemPageOptions = {}): { status: number; html: string } {
  const problem = problemFromError(err, options);
  const errors = Array.isArray(problem.errors) ? (problem.errors as FieldError[]) : [];
  const list = errors.length === 0 ? '' : `<ul class="errors">${errors.map((e) => `<li>${e.field ? `<code>${h(e.field)}</code>: ` : ''}${h(e.message)}</li>`).join('')}</ul>\n`;
  const code = typeof problem.code === 'string' ? `<dt>code</dt><dd>${h(problem.code)}</dd>` : '';
  const main = `<h1>${problem.status} ${h(problem.title)}</h1>\n`
    + (problem.detail !== undefined ? `<p class="errors" role="alert">${h(problem.detail)}</p>\n` : '')
    + list
    + (options.more ?? '')
    + `<section class="panel" aria-label="Problem details"><dl class="meta"><dt>status</dt><dd>${problem.status}</dd><dt>type</dt><dd>${h(problem.type)}</dd>${code}</dl></section>\n`
    + '<p><a href="/articles">All articles</a></p>';
  return { status: problem.status, html: renderPage({ title: `${problem.status} ${problem.title}`, main, caller: options.caller, signIn: options.signIn }) };
}

/**
 * Answers with the problem page: the error's status and headers (Allow, WWW-Authenticate), no
 * leftover representation headers, `Vary: Accept`. Like sendProblem, destroys the socket when
 * headers are already sent.
 * @example
 *   if (prefersHtml(req.headers.accept)) sendProblemPage(req, res, err, { env })
 */
export function sendProblemPage(req: Request, res: Response, err: unknown, options: ProblemPageOptions = {}): void {
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  const { status, html } = renderProblemPage(err, options);
  prepareErrorResponse(res, status, err);
  res.vary('Accept');
  // A page naming a caller or holding what they typed is theirs alone.
  if (options.caller !== undefined || options.more !== undefined) res.setHeader('Cache-Control', 'private, no-store');
  sendPage(res, status, html, [], req.method === 'HEAD');
}
