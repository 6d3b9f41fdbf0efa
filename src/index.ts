/**
 * @module roa
 * Public exports.
 */
export { createApp, type App, type AppOptions } from './app.js';
export { Router, type RouterOptions } from './router/router.js';
export { Route } from './router/route.js';
export type { RequestHandler, ErrorRequestHandler, NextFunction } from './router/handler.js';
export { compilePath, type RoutePath } from './router/path.js';
export { Request } from './http/request.js';
export { Response } from './http/response.js';
export { negotiate } from './http/accepts.js';
export { HttpError, type HttpErrorOptions } from './errors/http-error.js';
