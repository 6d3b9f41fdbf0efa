/**
 * @module html/stylesheet
 * The look of every roa page, served as one stylesheet at a path named after its content hash, so
 * it is cached for a year (`immutable`) and a strict Content-Security-Policy (`style-src 'self'`)
 * allows it without any inline style.
 */
import { createHash } from 'node:crypto';
import { parseEtagList, weakMatch } from '../http/etag-list.js';
import type { NextFunction, Request } from '../http/request.js';
import type { Response } from '../http/response.js';

const CSS = `:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--line:#d0d7de;--accent:#0b5cad;--bad:#b42318;--panel:#f6f8fa}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9da7b3;--line:#30363d;--accent:#6cb6ff;--bad:#ff7b72;--panel:#161b22}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.25rem .5rem}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:baseline;justify-content:space-between;padding:.75rem 1rem;border-bottom:1px solid var(--line)}
header.top .brand{font-weight:700;text-decoration:none}
main{max-width:48rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;line-height:1.25;margin:.5rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.price{font-size:1.25rem}
ul.items{padding-left:1.25rem}ul.items li{margin:.25rem 0;overflow-wrap:anywhere}
nav.pages{display:flex;gap:1rem;margin:1rem 0}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dl.meta dt{color:var(--muted)}dl.meta dd{margin:0;font-family:ui-monospace,monospace;font-size:.9rem;overflow-wrap:anywhere}
section.panel{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:.75rem 1rem;margin:1rem 0}
section.panel h2{margin-top:0}
form{display:grid;gap:.75rem;margin:.5rem 0}
label{display:grid;gap:.25rem;font-weight:600}
input[type=text],input[type=password]{font:inherit;font-weight:400;padding:.5rem;border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg);width:100%}
button{font:inherit;padding:.5rem 1rem;border-radius:4px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;justify-self:start}
button.danger{background:var(--bad);border-color:var(--bad)}
.errors{color:var(--bad)}
.note{color:var(--muted);font-size:.9rem}
code{font-family:ui-monospace,monospace;font-size:.9em}
`;

/** The stylesheet's bytes, its strong ETag and the versioned path it is served at. */
export const STYLESHEET_BODY = Buffer.from(CSS);
const HASH = createHash('sha256').update(STYLESHEET_BODY).digest('base64url').slice(0, 12);
export const STYLESHEET_ETAG = `"${HASH}"`;
/** `/_roa/style.<hash>.css`: a new look gets a new URL, so a year of caching never serves an old one. */
export const STYLESHEET_PATH = `/_roa/style.${HASH}.css`;

/**
 * A middleware answering GET and HEAD of `STYLESHEET_PATH` (any other request passes on), with
 * `Cache-Control: public, max-age=31536000, immutable` and 304 on a matching If-None-Match.
 * Mount it before authentication: the look is public.
 * @example
 *   app.use(stylesheet())
 */
export function stylesheet() {
  return (req: Request, res: Response, next: NextFunction): void => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.url !== STYLESHEET_PATH) {
      next();
      return;
    }
    const headers = ['Content-Type', 'text/css; charset=utf-8', 'ETag', STYLESHEET_ETAG, 'Cache-Control', 'public, max-age=31536000, immutable', 'X-Content-Type-Options', 'nosniff'];
    const tags = parseEtagList(req.headers['if-none-match']);
    if (tags === '*' || (tags !== undefined && weakMatch(tags, STYLESHEET_ETAG))) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    res.writeHead(200, [...headers, 'Content-Length', String(STYLESHEET_BODY.length)]);
    res.end(req.method === 'HEAD' ? undefined : STYLESHEET_BODY);
  };
}
