/**
 * @module auth/consent/consent-headers
 * The response fields of every sign-in, approval and error page: no framing (clickjacking), no
 * referrer (the query carries `state` and challenges), never stored by any cache, and a content
 * policy that allows roa's stylesheet (html/stylesheet, same origin) and nothing else to load or run.
 */
import type { Response } from '../../http/response.js';

/**
 * The `form-action` source for a URL the form's answer may redirect to: its origin for http(s), its
 * scheme for a native app's private-use scheme (RFC 8252 §7.1). Browsers apply `form-action` to the
 * redirects that follow a submission too, so the destination must be listed.
 */
export function formActionSource(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol === 'http:' || u.protocol === 'https:') return u.origin;
  return /^[a-z][a-z0-9+.-]*:$/.test(u.protocol) ? u.protocol : undefined;
}

/**
 * The fields, as a record; `formTargets` are the URLs the form's answer may redirect to.
 * @example
 *   res.set(consentHeaders(['https://app.example/callback']));
 */
export function consentHeaders(formTargets: readonly string[] = []): Record<string, string> {
  const targets = formTargets.map(formActionSource).filter((s): s is string => s !== undefined);
  const formAction = ["'self'", ...new Set(targets)].join(' ');
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': `default-src 'none'; style-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  };
}

/** Sends `html` with `status` and the page fields. */
export function sendPage(res: Response, status: number, html: string, formTargets: readonly string[] = [], extra: Record<string, string> = {}): void {
  res.status(status).set({ ...consentHeaders(formTargets), ...extra }).send(html);
}
