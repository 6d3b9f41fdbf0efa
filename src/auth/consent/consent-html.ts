/**
 * @module auth/consent/consent-html
 * The HTML of the sign-in and approval page and of the error page: plain forms that work without
 * JavaScript, every value escaped (escape-html) where it is written.
 */
import escapeHtml from 'escape-html';

/** The pages' one stylesheet, inline; its hash is the only style the content policy allows. */
export const PAGE_STYLE = [
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}',
  'h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}',
  'input[type=text],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}',
  '.error{color:#a00;font-weight:bold}.buttons{margin-top:1.2rem}button{margin-right:.6rem;padding:.4rem 1rem}',
  'code{background:#f2f2f2;padding:0 .2rem}',
].join('');

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

const e = (s: string): string => escapeHtml(s);

function document(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(title)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
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
  const body = `<main>
<h1>${e(title)}</h1>
<p>The application <strong id="client">${e(view.client)}</strong> asks to act on your behalf.</p>
${permissions.length > 0 ? `<p>It asks for:</p>\n<ul id="permissions">${permissions.map((p) => `<li><code>${e(p)}</code></li>`).join('')}</ul>` : ''}
${view.returnTo !== undefined ? `<p>Your answer goes to <code id="return-to">${e(view.returnTo)}</code>.</p>` : ''}
${view.error !== undefined ? `<p class="error" id="error" role="alert">${e(view.error)}</p>` : ''}
<form method="post" action="${e(view.action)}">
${hidden}
<label for="username">User name</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" spellcheck="false" value="${e(view.username ?? '')}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password">
<div class="buttons">
<button type="submit" name="decision" value="approve" id="approve">Sign in and approve</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</div>
</form>
</main>`;
  return document(title, body);
}

/** A page saying why the request cannot go on (no form, no redirect). */
export function renderErrorPage(title: string, message: string): string {
  return document(title, `<main>\n<h1>${e(title)}</h1>\n<p id="message">${e(message)}</p>\n</main>`);
}

/** A page showing a value the user copies by hand (OAuth 1.0a's out-of-band verifier, RFC 5849 §2.2). */
export function renderCodePage(title: string, message: string, code: string): string {
  return document(title, `<main>\n<h1>${e(title)}</h1>\n<p>${e(message)}</p>\n<p><code id="code">${e(code)}</code></p>\n</main>`);
}
