/**
 * @module http/content-type
 * The one reading of a request's Content-Type (RFC 9110 §8.3), for body parsers, resources and the
 * OAuth endpoints: `content-type` parses it, memoised per header string.
 */
import { parse } from 'content-type';
import { HttpError } from '../errors/http-error.js';
import { BoundedMap } from '../util/bounded-map.js';

export interface ParsedContentType {
  /** The media type, lower-cased: `application/json`. */
  type: string;
  /** Parameters by lower-cased name, values unquoted (a quoted `;` or `,` stays in its value). */
  parameters: Readonly<Record<string, string>>;
}

// content-type 2.x parses leniently by design (a parameter without `=` is skipped, `;;x` gives an
// empty type), so the value is first checked against the grammar it parses:
//   media-type = type "/" subtype parameters                     (RFC 9110 §8.3.1)
//   parameters = *( OWS ";" OWS [ parameter ] )                    (§5.6.6: empty ones allowed)
//   parameter  = token "=" ( token / quoted-string )               (§5.6.4 quoted-string)
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t !#-\\[\\]-~\\x80-\\xFF]|\\\\[\\t -~\\x80-\\xFF])*"';
const MEDIA_TYPE = new RegExp(`^[ \\t]*${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*(?:${TOKEN}=(?:${TOKEN}|${QUOTED}))?)*[ \\t]*$`);

const UTF8_NAMES = new Set(['utf-8', 'utf8', 'us-ascii']);

// Clients send few distinct values; a bounded memo keeps parsing off the hot path.
const MEMO = new BoundedMap<string, ParsedContentType | null>(256);

/**
 * Parses a Content-Type value, or returns undefined when it is not a media-type.
 * @example
 *   parseContentType('application/json; profile="x;charset=latin1"');
 *   // { type: 'application/json', parameters: { profile: 'x;charset=latin1' } }
 *   parseContentType('application/json; charset'); // undefined
 */
export function parseContentType(value: string): ParsedContentType | undefined {
  let parsed = MEMO.get(value);
  if (parsed === undefined) {
    if (MEDIA_TYPE.test(value)) {
      const { type, parameters } = parse(value);
      parsed = { type, parameters: Object.freeze({ ...parameters }) };
    } else {
      parsed = null;
    }
    MEMO.set(value, parsed);
  }
  return parsed ?? undefined;
}

/**
 * The media type of a request body's Content-Type, lower-cased; '' when there is none.
 * Throws 400 `ROA_ERR_MALFORMED_CONTENT_TYPE` when the value is not a media-type: the request
 * is malformed (RFC 9110 §15.5.1), which is not the same as a type the server does not take (415).
 */
export function requestMediaType(value: string | undefined): string {
  if (value === undefined || value === '') return '';
  const parsed = parseContentType(value);
  if (parsed === undefined) throw malformedContentType();
  return parsed.type;
}

/** True for a charset parameter that means UTF-8 (absent, `utf-8`, `utf8`, `us-ascii`; any case). */
export function isUtf8Charset(charset: string | undefined): boolean {
  return charset === undefined || UTF8_NAMES.has(charset.toLowerCase());
}

/** The charset parameter of a Content-Type (lower-cased), or undefined (also when malformed). */
export function charsetOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  return parseContentType(contentType)?.parameters.charset?.toLowerCase();
}

/**
 * Text bodies are read as UTF-8 (US-ASCII is a subset); any other charset is refused with 415
 * rather than silently misread, and a malformed Content-Type with 400. A missing charset means
 * UTF-8 (RFC 8259 §8.1 for JSON).
 */
export function assertUtf8(contentType: string | undefined): void {
  if (contentType === undefined || contentType === '') return;
  const parsed = parseContentType(contentType);
  if (parsed === undefined) throw malformedContentType();
  const charset = parsed.parameters.charset;
  if (!isUtf8Charset(charset)) {
    throw new HttpError(415, `Unsupported charset ${charset!.toLowerCase()}; use utf-8`, { code: 'ROA_ERR_UNSUPPORTED_CHARSET' });
  }
}

function malformedContentType(): HttpError {
  return new HttpError(400, 'Malformed Content-Type', { code: 'ROA_ERR_MALFORMED_CONTENT_TYPE' });
}
