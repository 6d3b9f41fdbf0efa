/**
 * @module http/xml-text
 * Text in XML 1.0 documents: which characters a document can carry at all, and the one escaper of
 * markup roa writes, XML (articles, lists, problem+xml) and HTML (the development error page).
 */

// XML 1.0 §2.2 Char: C0 controls other than tab, LF and CR, U+FFFE, U+FFFF and unpaired
// surrogates cannot appear in a document, not even as character references.
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const FORBIDDEN_ALL = new RegExp(FORBIDDEN.source, 'g');

/** True when `text` holds a character no XML 1.0 document can carry. */
export function hasXmlForbiddenChar(text: string): boolean {
  return FORBIDDEN.test(text);
}

// The five markup characters: all that element content and a quoted attribute value need escaped,
// in XML and in HTML alike.
const MARKUP: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const MARKUP_ONE = /[&<>"']/;
const MARKUP_ALL = /[&<>"']/g;
// Plus the whitespace an XML parser would not give back as written: CR becomes LF at end-of-line
// handling (§2.11) and tab/LF become spaces in attribute values (§3.3.3).
const ESCAPES: Record<string, string> = { ...MARKUP, '\r': '&#xD;', '\n': '&#xA;', '\t': '&#x9;' };
const SPECIAL_ONE = /[&<>"'\r\n\t]/;
const SPECIAL_ALL = /[&<>"'\r\n\t]/g;

function escapeWith(text: string, one: RegExp, all: RegExp, table: Record<string, string>): string {
  // Characters XML forbids (which roa refuses on input, but older data or an error message may
  // hold) become U+FFFD, so the output is always well-formed.
  const clean = FORBIDDEN.test(text) ? text.replace(FORBIDDEN_ALL, '\uFFFD') : text;
  return one.test(clean) ? clean.replace(all, (c) => table[c]!) : clean;
}

/**
 * Escapes text for element content and quoted attribute values, in XML or HTML: the five markup
 * characters, and U+FFFD for characters XML forbids. Line breaks and tabs stay as they are (an
 * HTML `<pre>` shows them).
 * @example
 *   escapeMarkup(`<p class="x">'&'</p>`) // '&lt;p class=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/p&gt;'
 */
export function escapeMarkup(text: string): string {
  return escapeWith(text, MARKUP_ONE, MARKUP_ALL, MARKUP);
}

/**
 * {@link escapeMarkup} for XML documents (articles, lists, problem+xml): CR, LF and tab become
 * character references too, so a parser reads every value back exactly as written.
 * @example
 *   escapeXml('a < b & "c"\n') // 'a &lt; b &amp; &quot;c&quot;&#xA;'
 */
export function escapeXml(text: string): string {
  return escapeWith(text, SPECIAL_ONE, SPECIAL_ALL, ESCAPES);
}
