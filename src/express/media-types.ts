/**
 * @module express/media-types
 * Content-Type values as Express 4's response writes them: short names and extensions resolved by
 * send's mime (1.x, the table Express 4 uses), a charset added where mime knows one, `utf-8` for
 * string bodies.
 */
import { format as formatContentType, parse as parseContentType } from 'content-type';
import send from 'send';
import { BoundedMap } from '../util/bounded-map.js';

/** send's mime (1.x), which Express 4 resolves short names and charsets with. */
const mime = (send as unknown as { mime: { lookup(path: string): string; charsets: { lookup(type: string): string | undefined } } }).mime;
const HAS_CHARSET = /;\s*charset\s*=/;

/** The type a `res.format` key names: its media type, or mime's type for a short name. */
export function mediaTypeOf(key: string): string {
  return key.includes('/') ? key.split(';')[0]!.trim() : mime.lookup(key);
}

// Handlers set few distinct Content-Types, so what they become is remembered (bounded): the
// content-type and mime look-ups run once per value, not once per response.
const LABELLED = new BoundedMap<string, string>(256);
const TYPES = new BoundedMap<string, string>(256);
const IN_UTF8 = new BoundedMap<string, string>(256);

/** A Content-Type as Express 4 sets it: a charset added when mime knows one for the type. */
export function labelled(type: string): string {
  let value = LABELLED.get(type);
  if (value === undefined) {
    value = type;
    if (!HAS_CHARSET.test(type)) {
      const charset = mime.charsets.lookup(type.split(';')[0]!);
      if (charset) value += '; charset=' + charset.toLowerCase();
    }
    LABELLED.set(type, value);
  }
  return value;
}

/** The Content-Type with `charset=utf-8`, the encoding string bodies are written in. */
export function inUtf8(type: string): string {
  let value = IN_UTF8.get(type);
  if (value === undefined) {
    const parsed = parseContentType(type);
    parsed.parameters.charset = 'utf-8';
    value = formatContentType(parsed);
    IN_UTF8.set(type, value);
  }
  return value;
}

/** What `res.type(type)` sets: `type` itself when it has a slash, else mime's type for the name or extension; labelled. */
export function typeValue(type: string): string {
  let value = TYPES.get(type);
  if (value === undefined) {
    value = labelled(type.includes('/') ? type : mime.lookup(type));
    TYPES.set(type, value);
  }
  return value;
}
