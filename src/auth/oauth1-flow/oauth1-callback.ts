/**
 * @module auth/oauth1-flow/oauth1-callback
 * The callback a client names in `oauth_callback` (RFC 5849 §2.1): `oob` or an absolute URI, which
 * must be one of the client's registered callbacks when it registered any; and the URI the browser
 * is sent to after approval (§2.2), with `oauth_token` and `oauth_verifier` added to its query.
 */

/** RFC 5849 §2.1: the value meaning "no callback; show the verifier to the user". */
export const OUT_OF_BAND = 'oob';

/** Schemes a browser would run or read locally instead of sending a request: never a callback. */
const REFUSED_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

/**
 * Why `uri` cannot be a callback, or undefined when it can: `oob`, or an absolute URI (http, https or
 * a native app's own scheme) without a fragment, which could not carry the answer.
 */
export function checkCallbackUri(uri: string): string | undefined {
  if (uri === OUT_OF_BAND) return undefined;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI or "oob"';
  }
  if (REFUSED_SCHEMES.has(url.protocol)) return `the ${url.protocol} scheme cannot be a callback`;
  if (url.hash !== '' || uri.includes('#')) return 'must not have a fragment';
  if (url.username !== '' || url.password !== '') return 'must not carry user information';
  return undefined;
}

/**
 * Why `callback` is refused for a client registered with `registered` callbacks, or undefined.
 * A client that registered callbacks may name only those, compared exactly (no prefix or pattern
 * matching, which has let attackers steer verifiers to their own pages elsewhere).
 */
export function callbackRefusal(callback: string, registered: readonly string[]): string | undefined {
  const problem = checkCallbackUri(callback);
  if (problem !== undefined) return `oauth_callback ${problem}`;
  if (registered.length > 0 && !registered.includes(callback)) return 'oauth_callback is not one of the callbacks registered for this client';
  return undefined;
}

/** §2.2: the callback with `oauth_token` and `oauth_verifier` (or other answer fields) added to its query. */
export function callbackWith(callback: string, fields: Readonly<Record<string, string>>): string {
  // Appended as text, so the client's own query reaches it exactly as registered (URLSearchParams would re-encode it).
  const added = Object.entries(fields).map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
  const url = new URL(callback);
  const base = url.search === '' && !callback.includes('?') ? `${callback}?` : callback.endsWith('?') || callback.endsWith('&') ? callback : `${callback}&`;
  return base + added;
}
