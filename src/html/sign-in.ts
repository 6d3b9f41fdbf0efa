/**
 * @module html/sign-in
 * Signing in to the browsable API without a session: `GET /login` answers 401 with a Basic
 * challenge (RFC 7617), the browser asks for the name and password and from then on sends them with
 * every request to the origin; once they verify, it is sent back to the page it came from (303).
 * Anonymous reads elsewhere stay 200: only this URL asks.
 */
import encodeUrl from 'encodeurl';
import type { Authenticator } from '../auth/authenticator.js';
import { isThenable, type Caller } from '../auth/scheme.js';
import { HttpError } from '../errors/http-error.js';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { h } from './escape.js';
import { renderPage, sendPage } from './page.js';

/** Where the sign-in link points. */
export const SIGN_IN_PATH = '/login';

export interface SignInOptions {
  authenticator: Authenticator;
  /** Production refuses to ask for a password over plain HTTP (middleware/credentials-over-tls). */
  production: boolean;
  /** The Basic realm the challenge names (default the authenticator's Basic scheme's, `roa`). */
  realm?: string;
}

/**
 * The handler of `GET /login?next=/path`: without credentials a 401 page with
 * `WWW-Authenticate: Basic realm="roa", charset="UTF-8"`; with valid ones 303 to `next` (a local
 * path only: anything else, `//host` included, goes to `/articles`); with bad ones the
 * authenticator's 401 (the browser asks again). In production over plain HTTP it does not ask at
 * all (403): the password would cross the network in clear before credentialsOverTls could refuse it.
 * @example
 *   app.get(SIGN_IN_PATH, signIn({ authenticator, production }))
 */
export function signIn(options: SignInOptions) {
  const challenge = `Basic realm="${options.realm ?? 'roa'}", charset="UTF-8"`;
  return (req: Request, res: Response, next: NextFunction): void => {
    if (options.production && !req.secure) {
      next(new HttpError(403, 'Sign in over https: a password is never asked for over plain HTTP', { code: 'ROA_ERR_TLS_REQUIRED' }));
      return;
    }
    const target = localPath(req.query.next);
    if (req.headers.authorization === undefined && req.headers.authentication === undefined) {
      const main = '<h1>Sign in</h1>\n<p>Your browser asks for your user name and password, and sends them with every request from now on. '
        + 'Close the browser to sign out.</p>\n'
        + `<p><a href="${h(target)}">Go back without signing in</a></p>`;
      sendPage(res, 401, renderPage({ title: 'Sign in', main }), ['WWW-Authenticate', challenge, 'Cache-Control', 'no-store'], req.method === 'HEAD');
      return;
    }
    let resolved: Caller | undefined | Promise<Caller | undefined>;
    try {
      resolved = options.authenticator.resolve(req);
    } catch (err) {
      next(err);
      return;
    }
    const done = (caller: Caller | undefined): void => {
      if (caller === undefined) {
        next(options.authenticator.unauthorized());
        return;
      }
      res.writeHead(303, ['Location', target, 'Content-Length', '0', 'Cache-Control', 'no-store']);
      res.end();
    };
    if (isThenable(resolved)) resolved.then(done, next);
    else done(resolved);
  };
}

/** `next` when it is a path on this origin (one leading slash, no backslash); else the collection. */
function localPath(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.includes('\\') || /[\u0000-\u001f]/.test(value)) return '/articles';
  // A Location holds only URL characters (RFC 9110 §10.2.2): the rest percent-encoded, as Express's res.location does.
  return encodeUrl(value);
}
