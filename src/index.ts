/**
 * @module roa
 * Public exports.
 */
export { createApp, type App, type AppOptions } from './app.js';
export { activeFastPaths, FAST_PATH_NAMES, type FastPathName, type FastPaths, type FastPathsOption } from './http/fast-paths.js';
export { Router, type RouterOptions } from './router/router.js';
export { Route } from './router/route.js';
export type { RequestHandler, ErrorRequestHandler, NextFunction } from './router/handler.js';
export { compilePath, type RoutePath } from './router/path.js';
export { Request } from './http/request.js';
export { Response } from './http/response.js';
export { negotiate } from './http/accepts.js';
export { HttpError, type HttpErrorOptions } from './errors/http-error.js';
export { json, urlencoded, methodOverride, sameOriginForms, errorHandler } from './middleware/index.js';
export type { JsonOptions, UrlencodedOptions, MethodOverrideOptions, SameOriginFormsOptions, ErrorHandlerOptions } from './middleware/index.js';
export { sendProblem, problemFromError, type Problem } from './errors/problem.js';
export { readRawBody } from './http/body.js';
export { resourceHandler, supportedMethods, type ResourceSpec, type View, type BodyFormat, type ResourceDeps, type PurgeTarget } from './resources/resource.js';
export { rolePolicy, mayModify } from './resources/policy.js';
export { Authenticator } from './auth/authenticator.js';
export type { AuthScheme, Caller } from './auth/scheme.js';
export { openStore } from './storage/open-store.js';
export type { Store, Article, ArticleInput, User, Role } from './storage/store.js';
export { createService, startService, type ServiceOptions } from './service.js';
export { createGateway, type Gateway, type GatewayOptions } from './gateway/index.js';
export { Purger } from './gateway/purger.js';
