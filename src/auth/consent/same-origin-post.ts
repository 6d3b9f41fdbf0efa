/**
 * @module auth/consent/same-origin-post
 * Refuses a sign-in form posted from another origin (login CSRF: a page elsewhere making the
 * browser sign in and approve), whatever its Content-Type. Unlike middleware/same-origin-forms, an
 * `Origin: null` is not judged alone: the pages send `Referrer-Policy: no-referrer`, and Fetch then
 * serialises the origin of the page's own POST as `null` (Fetch §3.1, "serializing a request
 * origin"), so `Sec-Fetch-Site` decides.
 */
import { HttpError } from '../../errors/http-error.js';
import { publicOrigin } from '../../http/public-origin.js';
import type { Request } from '../../http/request.js';

/**
 * True when a browser says the POST came from the service's own origin (the request's public
 * origin, or one of `origins`, e.g. `--issuer`), or when nothing says it came from a browser at all
 * (neither `Origin` nor `Sec-Fetch-Site`: curl, HTTP libraries, which hold no one's session).
 */
export function postedFromOwnOrigin(req: Request, origins: ReadonlySet<string> = new Set()): boolean {
  const origin = req.headers.origin;
  const site = req.headers['sec-fetch-site'];
  if (origin !== undefined && origin !== 'null') {
    const claimed = serialised(origin);
    return claimed !== undefined && (origins.has(claimed) || claimed === serialised(publicOrigin(req)));
  }
  if (site !== undefined) return site === 'same-origin';
  // `Origin: null` without Sec-Fetch-Site: a sandboxed or opaque origin, never the page itself.
  return origin === undefined;
}

/** The 403 for a cross-origin POST. */
export function crossOriginPost(): HttpError {
  return new HttpError(403, 'This form was posted from another site; sign in on this site\'s own page', { code: 'ROA_ERR_CROSS_ORIGIN_FORM' });
}

/** The ASCII serialisation of an http(s) origin (lower case, default port dropped), or undefined. */
export function serialised(value: string): string | undefined {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== 'null' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
