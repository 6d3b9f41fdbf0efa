/**
 * @module express/response
 * `express.response`: roa's Response with Express 4's response API and its exact behaviour
 * (ETag by the app's `etag fn`, 304 when fresh, the deprecated `(status, body)` forms, JSON by the
 * `json replacer`/`json spaces`/`json escape` settings). Every app's `app.response` inherits from
 * it; createApp's responses do not, so roa's own `send` keeps its speed there.
 */
import { extname } from 'node:path';
import contentDisposition from 'content-disposition';
import depd from 'depd';
import encodeUrl from 'encodeurl';
import escapeHtml from 'escape-html';
import createError from 'http-errors';
import statuses from 'statuses';
import appendVary from 'vary';
import { Response, type HeaderValue } from '../http/response.js';
import { jsonpScript, stringifyJson, type JsonReplacer } from './json-body.js';
import { inUtf8, labelled, mediaTypeOf, typeValue } from './media-types.js';
import { clearingOptions, setCookieLine, type CookieOptions } from './cookies.js';
import { builtInStringETag, type ETagFn } from './settings.js';
import type { ExpressRequest } from './request.js';
import { download, sendFile, sendFileLegacy, type SendFileCallback, type SendFileOptions } from './send-file.js';

const deprecate = depd('express');

/** The Content-Types `send` gives a string and `json` its text when none is set (mime's charset added). */
const HTML_TYPE = typeValue('html');
const JSON_TYPE = labelled('application/json');

type Settings = { get(setting: string): unknown; render?: (view: string, options: object, done: RenderCallback) => void };
type RenderCallback = (err: Error | null, html?: string) => void;
type FormatHandler = (req: ExpressRequest, res: ExpressResponse, next: (err?: unknown) => void) => void;

export class ExpressResponse extends Response {
  declare req: ExpressRequest;

  /** The app whose settings apply (the one handling the request now). */
  get app(): Settings {
    return (this.req?.app ?? { get: () => undefined }) as Settings;
  }

  override status(code: number): this {
    if ((typeof code === 'string' || Math.floor(code) !== code) && code > 99 && code < 1000) {
      deprecate(`res.status(${JSON.stringify(code)}): use res.status(${Math.floor(code)}) instead`);
    }
    this.statusCode = code;
    return this;
  }

  /** Adds `<url>; rel="name"` entries to Link (RFC 8288). */
  links(links: Record<string, string>): this {
    const prev = this.get('Link');
    const added = Object.keys(links).map((rel) => `<${links[rel]}>; rel="${rel}"`).join(', ');
    return this.set('Link', prev ? `${String(prev)}, ${added}` : added);
  }

  /**
   * Sets a header (values coerced to strings, arrays to arrays of strings) or several from an
   * object; a Content-Type without charset gets the one mime knows for it.
   */
  override set(field: string | Record<string, HeaderValue>, value?: HeaderValue): this {
    if (typeof field === 'object' && field !== null) {
      for (const key in field) this.set(key, field[key]);
      return this;
    }
    const text: string | string[] = Array.isArray(value) ? value.map(String) : String(value);
    if (field.length === 12 && field.toLowerCase() === 'content-type') {
      if (Array.isArray(text)) throw new TypeError('Content-Type cannot be set to an Array');
      this.setHeader(field, labelled(text));
      return this;
    }
    this.setHeader(field, text);
    return this;
  }

  override header(field: string | Record<string, HeaderValue>, value?: HeaderValue): this {
    return arguments.length === 2 ? this.set(field, value) : this.set(field);
  }

  override append(field: string, value: string | string[]): this {
    const prev = this.get(field);
    let next: HeaderValue = value;
    if (prev) {
      if (Array.isArray(prev)) next = prev.concat(value);
      else next = Array.isArray(value) ? [String(prev)].concat(value) : [String(prev), value];
    }
    return this.set(field, next);
  }

  /** Content-Type from a full type, or a short name or extension looked up by mime. */
  override type(type: string): this {
    this.setHeader('Content-Type', typeValue(type));
    return this;
  }

  contentType(type: string): this {
    return this.type(type);
  }

  override vary(field: string | readonly string[]): this {
    if (!field || (Array.isArray(field) && field.length === 0)) {
      deprecate('res.vary(): Provide a field name');
      return this;
    }
    appendVary(this, field as string | string[]);
    return this;
  }

  /** Location, percent-encoded by encodeurl; `back` is the Referrer (or `/`). */
  override location(url: unknown): this {
    let loc: string;
    if (url === 'back') {
      deprecate('res.location("back"): use res.location(req.get("Referrer") || "/")');
      loc = this.req.get('Referrer') || '/';
    } else {
      loc = String(url);
    }
    return this.set('Location', encodeUrl(loc));
  }

  /**
   * Sends `body`: strings as HTML unless typed, Buffers as octets, objects, numbers and booleans
   * as JSON; ETag by the app's `etag fn`, 304 when the request is fresh, no body for HEAD.
   */
  override send(body?: unknown, status?: unknown): this {
    let chunk = body;
    if (arguments.length === 2) {
      if (typeof body !== 'number' && typeof status === 'number') {
        deprecate('res.send(body, status): Use res.status(status).send(body) instead');
        this.statusCode = status;
      } else {
        deprecate('res.send(status, body): Use res.status(status).send(body) instead');
        this.statusCode = body as number;
        chunk = status;
      }
    }
    if (typeof chunk === 'number' && arguments.length === 1) {
      if (!this.get('Content-Type')) this.type('txt');
      deprecate('res.send(status): Use res.sendStatus(status) instead');
      this.statusCode = chunk;
      chunk = statuses.message[chunk];
    }
    switch (typeof chunk) {
      case 'string':
        if (!this.getHeader('content-type')) this.setHeader('Content-Type', HTML_TYPE);
        break;
      case 'boolean':
      case 'number':
      case 'object':
        if (chunk === null) chunk = '';
        else if (Buffer.isBuffer(chunk)) {
          if (!this.get('Content-Type')) this.type('bin');
        } else return this.json(chunk);
        break;
    }
    return this.sendChunk(chunk as string | Buffer | undefined);
  }

  /** The end of `send`: charset, Content-Length, ETag, freshness, then the body (or none). */
  private sendChunk(body: string | Buffer | undefined): this {
    let chunk = body;
    if (typeof chunk === 'string') {
      const type = this.getHeader('content-type');
      // The two defaults are already in UTF-8.
      if (typeof type === 'string' && type !== HTML_TYPE && type !== JSON_TYPE) {
        const utf8 = inUtf8(type);
        if (utf8 !== type) this.setHeader('Content-Type', utf8);
      }
    }
    const etagFn = this.getHeader('etag') ? undefined : (this.app.get('etag fn') as ETagFn | undefined);
    if (chunk !== undefined) {
      let tag: string | undefined;
      if (typeof chunk === 'string') {
        const length = Buffer.byteLength(chunk, 'utf8');
        // The built-in tags hash a string as it is; an app's own etag function gets the bytes, as in Express 4.
        tag = etagFn === undefined ? undefined : builtInStringETag(etagFn, chunk, length);
        if (chunk.length >= 1000 || (etagFn !== undefined && tag === undefined)) chunk = Buffer.from(chunk, 'utf8');
        this.setHeader('Content-Length', String(length));
        if (tag !== undefined) this.setHeader('ETag', tag);
      } else {
        this.setHeader('Content-Length', String(chunk.length));
      }
      if (etagFn !== undefined && tag === undefined) {
        const own = etagFn(chunk, undefined);
        if (own) this.setHeader('ETag', String(own));
      }
    }
    if (this.req.fresh) this.statusCode = 304;
    const code = this.statusCode;
    if (code === 204 || code === 304) {
      this.removeHeader('Content-Type');
      this.removeHeader('Content-Length');
      this.removeHeader('Transfer-Encoding');
      chunk = '';
    }
    if (code === 205) {
      this.set('Content-Length', '0');
      this.removeHeader('Transfer-Encoding');
      chunk = '';
    }
    if (this.req.method === 'HEAD') this.end();
    else if (chunk === undefined) this.end();
    else this.end(chunk);
    return this;
  }

  /** Sends `value` as JSON by the app's `json replacer`, `json spaces` and `json escape`. */
  override json(value?: unknown, status?: unknown): this {
    const body = this.statusAndBody(arguments.length, value, status, 'json');
    if (!this.getHeader('content-type')) this.setHeader('Content-Type', JSON_TYPE);
    return this.send(this.stringify(body));
  }

  /**
   * JSON, or a script calling the function named in the query's `jsonp callback name` parameter
   * (only `[]\w$.` kept of it, and prefixed by a comment, against content sniffing attacks).
   */
  jsonp(value?: unknown, status?: unknown): this {
    const data = this.statusAndBody(arguments.length, value, status, 'jsonp');
    let body = this.stringify(data);
    let callback = (this.req.query as Record<string, unknown>)[String(this.app.get('jsonp callback name') ?? 'callback')];
    if (!this.get('Content-Type')) {
      this.set('X-Content-Type-Options', 'nosniff');
      this.set('Content-Type', 'application/json');
    }
    if (Array.isArray(callback)) callback = callback[0];
    if (typeof callback === 'string' && callback.length !== 0) {
      this.set('X-Content-Type-Options', 'nosniff');
      this.set('Content-Type', 'text/javascript');
      body = jsonpScript(callback, body);
    }
    return this.send(body);
  }

  /** The deprecated `(body, status)` and `(status, body)` forms of json and jsonp. */
  private statusAndBody(count: number, first: unknown, second: unknown, name: string): unknown {
    if (count !== 2) return first;
    if (typeof second === 'number') {
      deprecate(`res.${name}(obj, status): Use res.status(status).${name}(obj) instead`);
      this.statusCode = second;
      return first;
    }
    deprecate(`res.${name}(status, obj): Use res.status(status).${name}(obj) instead`);
    this.statusCode = first as number;
    return second;
  }

  private stringify(value: unknown): string | undefined {
    const app = this.app;
    return stringifyJson(value, app.get('json replacer') as JsonReplacer | undefined, app.get('json spaces') as string | number | undefined, Boolean(app.get('json escape')));
  }

  override sendStatus(code: number): this {
    const body = statuses.message[code] || String(code);
    this.statusCode = code;
    this.type('txt');
    return this.send(body);
  }

  /**
   * Runs the handler for the type the client accepts best (`req.accepts`), with `Vary: Accept`;
   * none acceptable and no `default`: 406 to `next`, listing the types offered.
   */
  override format(handlers: Record<string, FormatHandler>): this {
    const req = this.req;
    const next = req.next!;
    const keys = Object.keys(handlers).filter((k) => k !== 'default');
    const key = keys.length > 0 ? req.accepts(keys) : false;
    this.vary('Accept');
    if (typeof key === 'string') {
      this.set('Content-Type', mediaTypeOf(key));
      handlers[key]!(req, this, next);
    } else if (handlers.default) {
      handlers.default(req, this, next);
    } else {
      next(createError(406, { types: keys.map(mediaTypeOf) }));
    }
    return this;
  }

  /** Content-Disposition: attachment (with the file name, and its type as Content-Type). */
  attachment(filename?: string): this {
    if (filename) this.type(extname(filename));
    this.set('Content-Disposition', contentDisposition(filename));
    return this;
  }

  /** Adds a Set-Cookie line (Express 4's options: maxAge in ms, signed, objects as `j:` JSON). */
  cookie(name: string, value: unknown, options?: CookieOptions): this {
    return this.append('Set-Cookie', setCookieLine(name, value, options, this.req.secret, Date.now()));
  }

  clearCookie(name: string, options?: CookieOptions): this {
    if (options?.maxAge) deprecate('res.clearCookie: Passing "options.maxAge" is deprecated.');
    if (options?.expires) deprecate('res.clearCookie: Passing "options.expires" is deprecated.');
    return this.cookie(name, '', clearingOptions(options));
  }

  /**
   * Redirects (302 unless a status is given first) with a short body in the form the client
   * accepts: text, HTML (the URL escaped), or none.
   */
  redirect(url: unknown, status?: unknown): void {
    let address = url;
    let code = 302;
    if (arguments.length === 2) {
      if (typeof url === 'number') {
        code = url;
        address = status;
      } else {
        deprecate('res.redirect(url, status): Use res.redirect(status, url) instead');
        code = status as number;
      }
    }
    const location = String(this.location(address).get('Location'));
    let body = '';
    this.format({
      text: () => {
        body = `${statuses.message[code]}. Redirecting to ${location}`;
      },
      html: () => {
        body = `<p>${statuses.message[code]}. Redirecting to ${escapeHtml(location)}</p>`;
      },
      default: () => {
        body = '';
      },
    });
    this.statusCode = code;
    this.set('Content-Length', Buffer.byteLength(body));
    if (this.req.method === 'HEAD') this.end();
    else this.end(body);
  }

  sendFile(path: string, options?: SendFileOptions | SendFileCallback, callback?: SendFileCallback): void {
    sendFile(this.req, this, path, options, callback);
  }

  /** Deprecated in Express 4: `sendFile`. */
  sendfile(path: string, options?: SendFileOptions | SendFileCallback, callback?: SendFileCallback): void {
    deprecate('res.sendfile: Use res.sendFile instead');
    sendFileLegacy(this.req, this, path, options, callback);
  }

  download(path: string, filename?: unknown, options?: unknown, callback?: unknown): void {
    download(this.req, this, path, filename, options, callback);
  }

  /** Renders `view` by the app's engines with `res.locals`; sends the HTML unless given a callback. */
  render(view: string, options?: object | RenderCallback, callback?: RenderCallback): void {
    const app = this.req.app as Settings;
    let done = callback;
    let opts = (options ?? {}) as Record<string, unknown>;
    if (typeof options === 'function') {
      done = options as RenderCallback;
      opts = {};
    }
    opts._locals = this.locals;
    const req = this.req;
    done ??= (err, html) => {
      if (err) req.next!(err);
      else this.send(html);
    };
    app.render!(view, opts, done);
  }
}

/** The prototype roa/express responses inherit (`express.response`). */
export const response: ExpressResponse = ExpressResponse.prototype;
