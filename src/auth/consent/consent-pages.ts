/**
 * @module auth/consent/consent-pages
 * The sign-in and approval pages the authorization endpoints share (OAuth 2.0 `/oauth/authorize`,
 * OAuth 1.0a `/oauth1/authorize`): `show` renders the form with the flow sealed in a hidden field;
 * `receive` takes the POST back — refusing other origins, malformed forms and stale or altered
 * flows, checking the password under the Basic throttle — and hands the endpoint the decision.
 */
import { HttpError } from '../../errors/http-error.js';
import { parseContentType, isUtf8Charset } from '../../http/content-type.js';
import { readRawBody } from '../../http/body.js';
import type { Request } from '../../http/request.js';
import type { Response } from '../../http/response.js';
import type { Store, User } from '../../storage/store.js';
import { sourceOf } from '../source-address.js';
import type { AttemptThrottle } from '../throttle.js';
import { sendPage } from './consent-headers.js';
import { renderConsentPage, renderErrorPage, type ConsentView } from './consent-html.js';
import { FlowSeal, type FlowValues } from './flow-seal.js';
import { crossOriginPost, postedFromOwnOrigin, serialised } from './same-origin-post.js';
import { PasswordSignIn } from './sign-in.js';
import { FormError, parseStrictForm } from './strict-form.js';

/** The hidden field carrying the sealed flow. */
export const FLOW_FIELD = 'flow';
/** Largest form body accepted (a user name, a password, a sealed flow and a few hidden fields). */
export const CONSENT_FORM_LIMIT = 16 * 1024;

export interface ConsentPagesOptions {
  /** At least 32 bytes shared by every instance: `consentKey(serverKey)` (flow-seal). */
  key: Buffer;
  store: Pick<Store, 'getUser'>;
  /** The throttle Basic counts passwords with (the same instance, or the same Redis). */
  throttle?: AttemptThrottle;
  /** Origins besides the request's own that are the service's (`--issuer` behind a TLS front end). */
  origins?: readonly string[];
  /** How long a shown form may be answered (default 10 minutes). */
  ttlMs?: number;
  now?: () => number;
}

/** What a page shows: the view without the form's own target and the flow field. */
export type PageView = Omit<ConsentView, 'action' | 'hidden' | 'error' | 'username'> & {
  /** More hidden fields (the flow is added). */
  hidden?: Readonly<Record<string, string>>;
  /** URLs the answer may redirect to, for the page's `form-action` policy. */
  formTargets?: readonly string[];
};

/** The decision a POST carried; `fields` holds every field of the form (the password removed). */
export type ConsentAnswer =
  | { decision: 'approve'; user: User; flow: FlowValues; fields: Map<string, string> }
  | { decision: 'deny'; flow: FlowValues; fields: Map<string, string> };

/**
 * @example
 *   const pages = new ConsentPages({ key: consentKey(serverKey), store, throttle });
 *   router.get('/oauth1/authorize', (req, res) => {
 *     // validate the request first; errors: pages.error(res, 400, 'Unknown token', '…')
 *     pages.show(req, res, 'oauth1-authorize', { oauth_token: token }, { client: consumerKey, returnTo: callback, formTargets: [callback] });
 *   });
 *   router.post('/oauth1/authorize', async (req, res) => {
 *     const answer = await pages.receive(req, res, 'oauth1-authorize', (flow) => viewFor(flow));
 *     if (answer === undefined) return;             // already answered: 403, 400, 429, or the form again
 *     if (answer.decision === 'deny') return res.redirect(303, deniedUrl(answer.flow));
 *     res.redirect(303, callbackWithVerifier(answer.flow, answer.user));
 *   });
 */
export class ConsentPages {
  private readonly seal: FlowSeal;
  private readonly signIn: PasswordSignIn;
  private readonly origins: ReadonlySet<string>;

  constructor(options: ConsentPagesOptions) {
    this.seal = new FlowSeal(options.key, { ttlMs: options.ttlMs, now: options.now });
    this.signIn = new PasswordSignIn({ store: options.store, throttle: options.throttle });
    this.origins = new Set((options.origins ?? []).map((o) => {
      const s = serialised(o);
      if (s === undefined) throw new TypeError(`ConsentPages: '${o}' is not an http(s) origin`);
      return s;
    }));
  }

  /** Shows the form (200), sealing `flow` (purpose-bound) into it; it posts to the request's own URL. */
  show(req: Request, res: Response, purpose: string, flow: FlowValues, view: PageView, status = 200): void {
    this.render(req, res, status, this.seal.seal(purpose, flow), view);
  }

  /** An error page (no form, never a redirect). */
  error(res: Response, status: number, title: string, message: string, headers: Record<string, string> = {}): void {
    sendPage(res, status, renderErrorPage(title, message), [], headers);
  }

  /**
   * Takes the form back. Resolves to the decision, or to undefined when it answered itself: 403 for
   * another origin, 400/413/415 for a malformed form, 400 for a flow that is altered, expired or
   * sealed for another purpose, the form again (403) after a wrong name or password, or (429 with
   * Retry-After) when the throttle refuses the attempt. Store failures reject, for the app's error handler.
   */
  async receive(req: Request, res: Response, purpose: string, view: (flow: FlowValues) => PageView): Promise<ConsentAnswer | undefined> {
    if (!postedFromOwnOrigin(req, this.origins)) {
      const refusal = crossOriginPost();
      this.error(res, refusal.status, 'Refused', refusal.message);
      return undefined;
    }
    let fields: Map<string, string>;
    try {
      fields = await readConsentForm(req);
    } catch (err) {
      if (!(err instanceof HttpError) || err.status >= 500) throw err;
      this.error(res, err.status, 'Malformed request', err.message);
      return undefined;
    }
    const sealed = fields.get(FLOW_FIELD) ?? '';
    const flow = this.seal.open(purpose, sealed);
    if (flow === undefined) {
      this.error(res, 400, 'This page has expired', 'The sign-in form is too old or was altered. Go back to the application and start again.');
      return undefined;
    }
    const decision = fields.get('decision');
    const password = fields.get('password') ?? '';
    fields.delete('password');
    if (decision === 'deny') return { decision, flow, fields };
    if (decision !== 'approve') {
      this.error(res, 400, 'Malformed request', 'decision must be approve or deny');
      return undefined;
    }
    const username = fields.get('username') ?? '';
    if (username === '' || password === '') {
      this.render(req, res, 400, sealed, view(flow), 'Enter your user name and password.', username);
      return undefined;
    }
    const outcome = await this.signIn.check(username, password, sourceOf(req));
    if (outcome.ok) return { decision, user: outcome.user, flow, fields };
    if (outcome.wait > 0) {
      this.render(req, res, 429, sealed, view(flow), `Too many attempts; try again in ${outcome.wait} seconds.`, username, { 'Retry-After': String(outcome.wait) });
    } else {
      this.render(req, res, 403, sealed, view(flow), 'Wrong user name or password.', username);
    }
    return undefined;
  }

  private render(req: Request, res: Response, status: number, sealed: string, view: PageView, error?: string, username?: string, headers: Record<string, string> = {}): void {
    const { formTargets, hidden, ...shown } = view;
    const html = renderConsentPage({
      ...shown,
      action: req.originalUrl || req.url || '/',
      hidden: { ...hidden, [FLOW_FIELD]: sealed },
      ...(error !== undefined ? { error } : {}),
      ...(username !== undefined ? { username } : {}),
    });
    sendPage(res, status, html, formTargets ?? [], headers);
  }
}

/** The POSTed form: urlencoded UTF-8 (415 otherwise), at most CONSENT_FORM_LIMIT bytes (413), strict (400). */
export async function readConsentForm(req: Request): Promise<Map<string, string>> {
  const header = req.headers['content-type'] ?? '';
  const type = parseContentType(header);
  if (type === undefined) throw new FormError('Malformed Content-Type');
  if (type.type !== 'application/x-www-form-urlencoded') {
    throw new HttpError(415, 'The form must be application/x-www-form-urlencoded', { code: 'ROA_ERR_UNSUPPORTED_MEDIA_TYPE' });
  }
  if (!isUtf8Charset(type.parameters.charset)) throw new HttpError(415, 'The form must be UTF-8', { code: 'ROA_ERR_UNSUPPORTED_MEDIA_TYPE' });
  const raw = await readRawBody(req, { limit: CONSENT_FORM_LIMIT });
  const text = raw.toString('utf8');
  // The form's bytes are ASCII (browsers percent-encode the rest); a stray byte is not a form.
  if (!/^[\x20-\x7e]*$/.test(text)) throw new FormError('The form body must be percent-encoded ASCII');
  return parseStrictForm(text);
}
