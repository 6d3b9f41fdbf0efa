/**
 * @module express/cookies
 * Set-Cookie lines as Express 4's `res.cookie` writes them: the `cookie` package serialises,
 * `cookie-signature` signs (`s:` prefix) with cookie-parser's `req.secret`, objects become `j:` JSON.
 */
import { serialize, type CookieSerializeOptions } from 'cookie';
import { sign } from 'cookie-signature';

export interface CookieOptions extends CookieSerializeOptions {
  /** Sign the value with cookie-parser's secret (`req.secret`). */
  signed?: boolean;
  /** Lifetime in milliseconds (Express's unit); becomes `Max-Age` in seconds and `Expires`. */
  maxAge?: number;
}

/**
 * The Set-Cookie value for `name=value` with Express 4's options. Throws when `signed` is asked
 * for without a secret, as Express does.
 * @example
 *   setCookieLine('sid', 'abc', { httpOnly: true, maxAge: 60_000 }, undefined, Date.now())
 */
export function setCookieLine(name: string, value: unknown, options: CookieOptions | undefined, secret: string | undefined, now: number): string {
  const opts: CookieOptions = { ...options };
  if (opts.signed && !secret) throw new Error('cookieParser("secret") required for signed cookies');
  let text = typeof value === 'object' ? 'j:' + JSON.stringify(value) : String(value);
  if (opts.signed) text = 's:' + sign(text, secret!);
  if (opts.maxAge != null) {
    const ms = Number(opts.maxAge);
    if (!Number.isNaN(ms)) {
      opts.expires = new Date(now + ms);
      opts.maxAge = Math.floor(ms / 1000);
    }
  }
  if (opts.path == null) opts.path = '/';
  delete opts.signed;
  return serialize(name, text, opts);
}

/** Options that expire a cookie at once (the epoch + 1 ms), as Express 4's `res.clearCookie`. */
export function clearingOptions(options: CookieOptions | undefined): CookieOptions {
  return { expires: new Date(1), path: '/', ...options };
}
