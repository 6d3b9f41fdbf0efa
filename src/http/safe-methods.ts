/**
 * @module http/safe-methods
 * The methods RFC 9110 §9.2.1 defines as safe (read-only by contract). A cache invalidates on the
 * others (RFC 9111 §4.4), a request signature must cover the body of the others, and a form post
 * from another site may not use them to write.
 */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
