/**
 * @module auth/consent
 * The shared sign-in and approval pages of the authorization endpoints (OAuth 2.0 and OAuth 1.0a).
 * Start with `ConsentPages` (consent-pages.ts); the pieces are exported for pages of other shapes.
 */
export { ConsentPages, CONSENT_FORM_LIMIT, FLOW_FIELD, readConsentForm, type ConsentAnswer, type ConsentPagesOptions, type PageView } from './consent-pages.js';
export { consentHeaders, formActionSource, sendPage } from './consent-headers.js';
export { renderCodePage, renderConsentPage, renderErrorPage, type ConsentView } from './consent-html.js';
export { consentKey, DEFAULT_FLOW_TTL_MS, FlowSeal, type FlowSealOptions, type FlowValues } from './flow-seal.js';
export { crossOriginPost, postedFromOwnOrigin } from './same-origin-post.js';
export { PasswordSignIn, type SignInOutcome } from './sign-in.js';
export { FormError, parseStrictForm, queryOf } from './strict-form.js';
