/** @module client The client side of roa's authentication: `import { signRequest } from 'roa/client'`. */
export { signRequest, type SignRequestOptions, type SignedHeaders, type SignExtras } from './sign-request.js';
export { formatStringToSign, NONCE_RE, type StringToSignParts } from './string-to-sign.js';
export { contentDigest, type DigestAlgorithm } from './content-digest.js';
