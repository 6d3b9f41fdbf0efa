/**
 * @module roa
 * The framework: the app and router, request and response, body parsers and the other middleware,
 * errors and problem details. Subpaths carry the rest: `roa/resources` (declaring resources),
 * `roa/auth` (authentication schemes), `roa/gateway` (the caching gateway), `roa/client` (signing
 * requests). The root also re-exports the resource, authentication and gateway entry points it has
 * always offered, and the article service (`createService`, `startService`, `openStore`).
 */
export { createApp, type App, type AppOptions } from './app.js';
export { activeFastPaths, FAST_PATH_NAMES, type FastPathName, type FastPaths, type FastPathsOption } from './http/fast-paths.js';
export { Router, type RouterOptions } from './router/router.js';
export { Route } from './router/route.js';
export type { RequestHandler, ErrorRequestHandler, NextFunction } from './router/handler.js';
export { compilePath, type RoutePath } from './router/path.js';
export { Request } from './http/request.js';
export { Response } from './http/response.js';
export { Http2Request, Http2Response } from './http/http2-messages.js';
export { negotiate } from './http/accepts.js';
export { readRawBody, type ReadBodyOptions } from './http/body.js';
export { HttpError, type HttpErrorOptions } from './errors/http-error.js';
export { sendProblem, problemFromError, problemToXml, validationError, PROBLEM_TYPE_BASE, type Problem, type ProblemOptions, type FieldError } from './errors/problem.js';
export { json, urlencoded, methodOverride, sameOriginForms, errorHandler, accessLog, isBodyParsed, credentialsOverTls } from './middleware/index.js';
export type {
  JsonOptions, UrlencodedOptions, MethodOverrideOptions, SameOriginFormsOptions, ErrorHandlerOptions, BodyParserOptions, TypeOption,
  CredentialsOverTlsOptions,
} from './middleware/index.js';
export { publicOrigin } from './http/public-origin.js';

// Also at `roa/resources`, `roa/auth` and `roa/gateway`.
export { resourceHandler, supportedMethods, rolePolicy, mayModify, Purger } from './resources/index.js';
export type { ResourceSpec, View, BodyFormat, ResourceDeps, PurgeTarget } from './resources/index.js';
export { Authenticator } from './auth/authenticator.js';
export type { AuthScheme, Caller } from './auth/scheme.js';
export { createGateway, type Gateway, type GatewayOptions } from './gateway/index.js';

// The article service the `roa` command runs. Its storage (drivers included) loads only when a
// store is opened.
export { createService, startService, type ServiceOptions } from './service.js';
export { openStore } from './storage/open-store.js';
export type { Store } from './storage/store.js';
