/** @module auth/scopes OAuth scopes (RFC 6749 §3.3) and the `insufficient_scope` refusal (RFC 6750 §3.1). */
import { HttpError } from '../errors/http-error.js';
import type { Caller } from './scheme.js';

// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
const SCOPE_TOKEN_RE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Splits a `scope` parameter; undefined when syntactically invalid, the empty value included
 * (RFC 6749 §3.3: one scope-token at least; a client wanting the default omits the parameter).
 * Duplicates collapse.
 */
export function parseScope(value: string): string[] | undefined {
  const parts = value.split(' ');
  if (parts.some((p) => !SCOPE_TOKEN_RE.test(p))) return undefined;
  return [...new Set(parts)];
}

/**
 * The 403 for a token that lacks `scope`, with the challenge of RFC 6750 §3 / §3.1 naming the
 * scope needed, so the client knows which token to ask for.
 */
export function insufficientScope(scope: string, realm = 'roa'): HttpError {
  return new HttpError(403, `This token lacks the ${scope} scope`, {
    code: 'ROA_ERR_INSUFFICIENT_SCOPE',
    headers: { 'WWW-Authenticate': `Bearer realm="${realm}", error="insufficient_scope", scope="${scope}"` },
  });
}

/**
 * Throws `insufficientScope` when a bearer caller's token lacks `scope` (Basic and hmac callers are unrestricted).
 * @example
 *   requireScope(caller, 'articles:write');
 */
export function requireScope(caller: Caller, scope: string, realm = 'roa'): void {
  if (caller.scopes === null || caller.scopes.includes(scope)) return;
  throw insufficientScope(scope, realm);
}
