/**
 * @module html/escape
 * The one escaper of HTML text and attribute values: `escape-html`, the package Express's own
 * pages (finalhandler, serve-static) escape with.
 */
import escapeHtml from 'escape-html';

/**
 * Escapes `&`, `<`, `>`, `"` and `'`, so the value is inert both as element content and inside a
 * quoted attribute value (`<p>${h(title)}</p>`, `value="${h(title)}"`). Never use it for a value
 * placed in an unquoted attribute, a URL scheme position, `<script>` or `<style>`: roa's pages have
 * none of these.
 * @example
 *   h('"><img src=x onerror=alert(1)>') // '&quot;&gt;&lt;img src=x onerror=alert(1)&gt;'
 */
export function h(value: string | number): string {
  return escapeHtml(String(value));
}
