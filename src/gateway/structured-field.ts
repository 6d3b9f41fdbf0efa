/**
 * @module gateway/structured-field
 * Just enough of RFC 8941 §4.2.2 to tell whether a Dictionary (CDN-Cache-Control) is valid.
 */
import type { Directives } from './cache-control.js';

const KEY = /^[a-z*][a-z0-9_\-.*]*/;
const BARE_ITEM = /^(?:-?\d{1,15}(?:\.\d{1,3})?|"(?:[^"\\]|\\["\\])*"|[A-Za-z*][!#$%&'*+\-.^_`|~:/A-Za-z0-9]*|:[A-Za-z0-9+/=]*:|\?[01])/;

/**
 * Parses a Dictionary into directives, or returns undefined when it is not a valid Structured
 * Field; RFC 9213 §2.1 then has the cache ignore CDN-Cache-Control and fall back to
 * Cache-Control. Integer-valued freshness directives of another type also invalidate it.
 */
export function parseSfDictionary(value: string): Directives | undefined {
  const out: Directives = new Map();
  let s = value.trim();
  if (s === '') return undefined;
  for (;;) {
    const key = KEY.exec(s);
    if (!key) return undefined;
    s = s.slice(key[0].length);
    let arg: string | true = true;
    if (s[0] === '=') {
      const item = BARE_ITEM.exec(s.slice(1));
      if (!item) return undefined;
      arg = item[0];
      s = s.slice(1 + item[0].length);
    }
    while (s[0] === ';') {
      s = s.slice(1).replace(/^ +/, '');
      const pkey = KEY.exec(s);
      if (!pkey) return undefined;
      s = s.slice(pkey[0].length);
      if (s[0] === '=') {
        const item = BARE_ITEM.exec(s.slice(1));
        if (!item) return undefined;
        s = s.slice(1 + item[0].length);
      }
    }
    if (/^(?:max-age|s-maxage|stale-while-revalidate|stale-if-error)$/.test(key[0]) && arg !== true && !/^\d+$/.test(arg)) {
      return undefined;
    }
    if (arg !== true && arg.startsWith('"')) arg = arg.slice(1, -1).replace(/\\(.)/g, '$1');
    if (!out.has(key[0])) out.set(key[0], arg);
    s = s.replace(/^[ \t]+/, '');
    if (s === '') return out;
    if (s[0] !== ',') return undefined;
    s = s.slice(1).replace(/^[ \t]+/, '');
    if (s === '') return undefined;
  }
}
