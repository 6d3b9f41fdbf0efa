/**
 * @module auth/redirect-uris
 * Which redirect URIs a client may register, and whether a request's redirect URI is one of them:
 * compared as exact strings (RFC 9700 §4.1.3), except that a loopback IP redirect of a native app
 * may name any port (RFC 8252 §7.3), since the app listens on whichever port the OS gave it.
 */

/** Longest redirect URI accepted, registered or requested. */
export const MAX_REDIRECT_URI_LENGTH = 2048;

/**
 * Why `uri` cannot be registered, or undefined when it can: an absolute URI without a fragment
 * (RFC 6749 §3.1.2) that is https, http on a loopback host (RFC 8252 §7.3, §8.3), or a private-use
 * scheme in reverse domain form (`com.example.app:/callback`, RFC 8252 §7.1).
 * @example
 *   redirectUriProblem('http://app.example/cb') // 'plain http only for loopback hosts …'
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'not an absolute URI';
  }
  if (uri.includes('#')) return 'a redirect URI has no fragment (RFC 6749 §3.1.2)';
  // Printable ASCII only (RFC 3986 §2): the URI goes into a Location field as it stands.
  if (!/^[\x21-\x7e]+$/.test(uri) || /["<>\\^`{|}]/.test(uri)) return 'characters a URI does not hold (percent-encode them)';
  if (url.protocol === 'https:') return url.hostname === '' ? 'no host' : undefined;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname) ? undefined : 'plain http only for loopback hosts (127.0.0.1, [::1], localhost); use https';
  if (url.protocol === 'javascript:' || url.protocol === 'data:' || url.protocol === 'file:') return `the ${url.protocol} scheme`;
  return url.protocol.slice(0, -1).includes('.') ? undefined : 'a private-use scheme is a reverse domain name, e.g. com.example.app: (RFC 8252 §7.1)';
}

/**
 * True when `requested` is one of `registered`: the same string, or for a loopback IP literal
 * (`http://127.0.0.1:PORT/…`, `http://[::1]:PORT/…`) the same URI with another port.
 */
export function redirectUriMatches(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  const loose = loopbackWithoutPort(requested);
  return loose !== undefined && registered.some((r) => loopbackWithoutPort(r) === loose);
}

function isLoopbackHost(hostname: string): boolean {
  return hostname === '127.0.0.1' || hostname === '[::1]' || hostname === 'localhost';
}

/** `requested` with its port cut out, when it is http on a loopback IP literal; else undefined. */
function loopbackWithoutPort(uri: string): string | undefined {
  const m = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?([/?].*)?$/.exec(uri);
  if (m === null) return undefined;
  return `http://${m[1]}${m[3] ?? ''}`;
}
