/**
 * @module express/json-body
 * The JSON text of `res.json` / `res.jsonp` by the app's `json replacer`, `json spaces` and
 * `json escape` settings, and the script a JSONP callback gets.
 */

export type JsonReplacer = (key: string, value: unknown) => unknown;

/** JSON.stringify with the settings; `escape` writes `<`, `>`, `&` as \u escapes. */
export function stringifyJson(value: unknown, replacer: JsonReplacer | undefined, spaces: string | number | undefined, escape: boolean): string | undefined {
  const json = replacer || spaces ? JSON.stringify(value, replacer, spaces) : JSON.stringify(value);
  if (escape && typeof json === 'string') {
    // So JSON inside HTML cannot close a script element or start an entity.
    return json.replace(/[<>&]/g, (c) => (c === '<' ? '\\u003c' : c === '>' ? '\\u003e' : '\\u0026'));
  }
  return json;
}

/**
 * `body` as the argument of a call to `callback`, keeping only `[]\w$.` of the name, with a leading
 * comment (against content-sniffing attacks on JSONP, "Rosetta Flash") and a typeof guard.
 * @example
 *   jsonpScript('cb', '{"a":1}')  // "/**\/ typeof cb === 'function' && cb({\"a\":1});"
 */
export function jsonpScript(callback: string, body: string | undefined): string {
  const name = callback.replace(/[^[\]\w$.]/g, '');
  // U+2028/2029 are legal in JSON strings but end a line in older JavaScript.
  const args = body === undefined ? '' : body.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return `/**/ typeof ${name} === 'function' && ${name}(${args});`;
}
