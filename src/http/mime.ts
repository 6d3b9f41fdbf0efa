/**
 * @module http/mime
 * Short names for the media types handlers name most (`res.type('json')`), as Express does.
 */
import { parseContentType, requestMediaType } from './content-type.js';

const SHORT_NAMES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
  problem: 'application/problem+json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  form: 'application/x-www-form-urlencoded',
  urlencoded: 'application/x-www-form-urlencoded',
  bin: 'application/octet-stream',
  octet: 'application/octet-stream',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
};

/**
 * Resolves `json`, `.html`, `text/plain` to a full Content-Type value. Text types get
 * `charset=utf-8` when they carry none, so bodies written as strings are labelled correctly.
 */
export function contentTypeFor(type: string): string {
  if (type.includes('/')) {
    if (/^text\/|\+xml|\/xml|\+json|\/json|javascript/i.test(type) && parseContentType(type)?.parameters.charset === undefined) {
      return type + '; charset=utf-8';
    }
    return type;
  }
  const short = type[0] === '.' ? type.slice(1) : type;
  return SHORT_NAMES[short.toLowerCase()] ?? 'application/octet-stream';
}

/**
 * The bare media type of a request's Content-Type, lower-cased: `Text/HTML; charset=x` -> `text/html`;
 * '' when absent. Throws 400 `ROA_ERR_MALFORMED_CONTENT_TYPE` for a value that is not a media-type.
 */
export const mediaTypeOf: (contentType: string | undefined) => string = requestMediaType;
