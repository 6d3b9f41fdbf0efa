// Loaded with `mocha --require` by bench/express-suite.sh: an Express 4 test file's
// `require('..')` / `require('../')` (the checkout's own index.js) resolves to roa/express instead.
// Nothing else is redirected, so the suite's helpers and fixtures are the checkout's own.
'use strict';
const Module = require('node:module');
const path = require('node:path');

const checkout = path.resolve(process.env.EXPRESS_CHECKOUT || process.cwd());
const testDir = path.join(checkout, 'test');
// Through the package's own "exports" (a self-reference from roa's root), as a user's require would.
const roaExpress = Module.createRequire(path.resolve(__dirname, '..', 'package.json')).resolve('roa/express');
const resolveFilename = Module._resolveFilename;

Module._resolveFilename = function (request, parent, ...rest) {
  if ((request === '..' || request === '../') && parent && parent.filename && path.dirname(parent.filename) === testDir) {
    return roaExpress;
  }
  return resolveFilename.call(this, request, parent, ...rest);
};
