/** @module auth/oauth-errors OAuth 2.0 error responses (RFC 6749 §5.2), kept apart from RFC 9457 problems. */

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'unsupported_token_type';

/** An error the token, revocation and introspection endpoints render as `{ error, error_description }`. */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export function invalidRequest(description: string): OAuthError {
  return new OAuthError('invalid_request', description);
}
