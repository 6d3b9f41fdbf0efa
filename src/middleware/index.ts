/**
 * @module middleware
 * Opt-in middleware.
 */
export { json, type JsonOptions } from './json.js';
export { urlencoded, type UrlencodedOptions } from './urlencoded.js';
export { isBodyParsed, type BodyParserOptions, type TypeOption } from './body-parser.js';
export { methodOverride, type MethodOverrideOptions } from './method-override.js';
export { sameOriginForms, type SameOriginFormsOptions } from './same-origin-forms.js';
export { errorHandler, type ErrorHandlerOptions } from './error-handler.js';
export { accessLog } from './access-log.js';
export { credentialsOverTls, OAUTH_CREDENTIAL_PATHS, type CredentialsOverTlsOptions } from './credentials-over-tls.js';
