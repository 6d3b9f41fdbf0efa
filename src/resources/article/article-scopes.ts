/**
 * @module resources/article/article-scopes
 * The OAuth scopes of the article application: what its tokens may carry, what a client gets by
 * default, and what the authorization server publishes as `scopes_supported` (RFC 8414 §2).
 */

/** The scope reading and the scope writing articles needs. */
export const ARTICLE_SCOPES = { read: 'articles:read', write: 'articles:write' } as const;

/** Every article scope, in the order clients and metadata list them. */
export const ARTICLE_SCOPE_LIST: readonly string[] = [ARTICLE_SCOPES.read, ARTICLE_SCOPES.write];
