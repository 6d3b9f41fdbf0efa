/**
 * @module auth/consent/consent-html
 * The HTML of the sign-in and approval page and of the error page: plain forms that work without
 * JavaScript, in the shell and look of roa's other pages (html/page), every value escaped with
 * html/escape where it is written.
 */
import { h as e } from '../../html/escape.js';
import { renderPage } from '../../html/page.js';

/** What the sign-in and approval page shows and posts. */
export interface ConsentView {
  /** Heading, e.g. "Sign in to approve an application". */
  title?: string;
  /** The application asking (its client id or name), shown as text. */
  client: string;
  /** What it asks for (scopes, or words describing access), one item each. */
  permissions?: readonly string[];
  /** Where the browser goes afterwards (shown so the user sees which site receives the answer). */
  returnTo?: string;
  /** The form's target: the page's own URL (path and query), so it posts to the same URL. */
  action: string;
  /** Hidden fields the page adds (name → value), e.g. the sealed flow. */
  hidden: Readonly<Record<string, string>>;
  /** A message after a failed attempt (wrong password, too many attempts). */
  error?: string;
  /** The user name typed before, kept after a failed attempt (never the password). */
  username?: string;
}

/**
 * The sign-in and approval form: fields `username`, `password` and a button per `decision`
 * (`approve`, `deny`), plus the hidden fields of `view.hidden`; it posts to `view.action`.
 */
export function renderConsentPage(view: ConsentView): string {
  const title = view.title ?? 'Sign in to approve an application';
  const permissions = view.permissions ?? [];
  const hidden = Object.entries(view.hidden)
    .map(([name, value]) => `<input type="hidden" name="${e(name)}" value="${e(value)}">`)
    .join('\n');
  const main = `<h1>${e(title)}</h1>
<p>The application <strong id="client">${e(view.client)}</strong> asks to act on your behalf.</p>
${permissions.length > 0 ? `<p>It asks for:</p>\n<ul id="permissions">${permissions.map((p) => `<li><code>${e(p)}</code></li>`).join('')}</ul>` : ''}
${view.returnTo !== undefined ? `<p>Your answer goes to <code id="return-to">${e(view.returnTo)}</code>.</p>` : ''}
${view.error !== undefined ? `<p class="errors" id="error" role="alert">${e(view.error)}</p>` : ''}
<form method="post" action="${e(view.action)}">
${hidden}
<label>User name <input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" value="${e(view.username ?? '')}"></label>
<label>Password <input type="password" id="password" name="password" autocomplete="current-password"></label>
<button type="submit" name="decision" value="approve" id="approve">Sign in and approve</button>
<button type="submit" name="decision" value="deny" id="deny" class="danger">Deny</button>
</form>`;
  return renderPage({ title, main });
}

/** A page saying why the request cannot go on (no form, no redirect). */
export function renderErrorPage(title: string, message: string): string {
  return renderPage({ title, main: `<h1>${e(title)}</h1>\n<p class="errors" id="message" role="alert">${e(message)}</p>` });
}

/** A page showing a value the user copies by hand (OAuth 1.0a's out-of-band verifier, RFC 5849 §2.2). */
export function renderCodePage(title: string, message: string, code: string): string {
  return renderPage({ title, main: `<h1>${e(title)}</h1>\n<p>${e(message)}</p>\n<p><code id="code">${e(code)}</code></p>` });
}
