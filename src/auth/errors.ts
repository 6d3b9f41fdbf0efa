/** @module auth/errors The HttpErrors the schemes raise, so every scheme answers alike. */
import { HttpError } from '../errors/http-error.js';

/** 401 for credentials that did not verify; the Authenticator adds every scheme's challenge. */
export function invalidCredentials(challenge: string, extensions?: Record<string, unknown>, message = 'Invalid credentials'): HttpError {
  return new HttpError(401, message, {
    code: 'ROA_ERR_INVALID_CREDENTIALS',
    headers: { 'WWW-Authenticate': challenge },
    extensions,
  });
}

/** 400 for a credentials header that is not syntactically valid: a client bug, not a wrong secret. */
export function malformedCredentials(detail: string): HttpError {
  return new HttpError(400, detail, { code: 'ROA_ERR_MALFORMED_CREDENTIALS' });
}
