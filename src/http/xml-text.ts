/**
 * @module http/xml-text
 * Text in XML 1.0 documents: which characters a document can carry at all, and the one escaping
 * function every XML roa writes (articles, lists, problem+xml) goes through.
 */

// XML 1.0 §2.2 Char: C0 controls other than tab, LF and CR, U+FFFE, U+FFFF and unpaired
// surrogates cannot appear in a document, not even as character references.
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const FORBIDDEN_ALL = new RegExp(FORBIDDEN.source, 'g');

/** True when `text` holds a character no XML 1.0 document can carry. */
export function hasXmlForbiddenChar(text: string): boolean {
  return FORBIDDEN.test(text);
}

// Markup and quotes, plus the whitespace a parser would not give back as written: CR becomes LF
// at end-of-line handling (§2.11) and tab/LF become spaces in attribute values (§3.3.3).
const ESCAPES: Record<string, string> = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#xD;', '\n': '&#xA;', '\t': '&#x9;',
};
const SPECIAL = /[&<>"'\r\n\t]/;
const SPECIAL_ALL = new RegExp(SPECIAL.source, 'g');

/**
 * Escapes text for element content and attribute values alike. Characters XML forbids (which
 * roa refuses on input, but older data may hold) become U+FFFD, so the output is always
 * well-formed.
 * @example
 *   escapeXml('a < b & "c"') // 'a &lt; b &amp; &quot;c&quot;'
 */
export function escapeXml(text: string): string {
  const clean = FORBIDDEN.test(text) ? text.replace(FORBIDDEN_ALL, '\uFFFD') : text;
  return SPECIAL.test(clean) ? clean.replace(SPECIAL_ALL, (c) => ESCAPES[c]!) : clean;
}
