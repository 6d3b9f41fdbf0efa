/**
 * @module express
 * `roa/express`: Express 4's API on roa's engine. `express()` makes an app exactly as Express 4
 * does (an EventEmitter function with `express.application`'s methods and its own request and
 * response prototypes), and the rest of Express's exports sit on `express`.
 * @example
 *   import express from 'roa/express'        // or: const express = require('roa/express')
 *   const app = express()
 *   app.get('/hello/:name', (req, res) => res.send(`Hello ${req.params.name}`))
 *   app.listen(3000)
 */
import { EventEmitter } from 'node:events';
import mixin from 'merge-descriptors';
import { Route } from '../router/route.js';
import { appPrototype, application, type ExpressApp } from './application.js';
import { json, raw, text, urlencoded } from './body-parsers.js';
import { query } from './query.js';
import { request } from './request.js';
import { response } from './response.js';
import { Router } from './router.js';
import { staticFiles } from './static.js';

/** Creates an Express 4 application running on roa's router. */
function createApplication(): ExpressApp {
  const app = function (req, res, next) {
    app.handle(req, res, next);
  } as ExpressApp;
  mixin(app, EventEmitter.prototype, false);
  mixin(app, application, false);
  app.request = appPrototype(request, app);
  app.response = appPrototype(response, app);
  app.init();
  return app;
}

const express = createApplication as typeof createApplication & {
  application: typeof application;
  request: typeof request;
  response: typeof response;
  Route: typeof Route;
  Router: typeof Router;
  json: typeof json;
  query: typeof query;
  raw: typeof raw;
  static: typeof staticFiles;
  text: typeof text;
  urlencoded: typeof urlencoded;
  [name: string]: unknown;
};

express.application = application;
express.request = request;
express.response = response;
express.Route = Route;
express.Router = Router;
express.json = json;
express.query = query;
express.raw = raw;
express.static = staticFiles;
express.text = text;
express.urlencoded = urlencoded;

// The middleware Express 3 bundled: a clear error instead of "not a function".
for (const name of ['bodyParser', 'compress', 'cookieSession', 'session', 'logger', 'cookieParser', 'favicon', 'responseTime',
  'errorHandler', 'timeout', 'methodOverride', 'vhost', 'csrf', 'directory', 'limit', 'multipart', 'staticCache']) {
  Object.defineProperty(express, name, {
    configurable: true,
    get() {
      throw new Error(`The middleware express.${name} left Express with version 4: install a package that provides it`);
    },
  });
}

export default express;
// `require('roa/express')` gives the function itself, as `require('express')` does.
export { express as 'module.exports' };
export { application, request, response, Route, Router, json, query, raw, staticFiles as static, text, urlencoded };
export type { ExpressApp };
