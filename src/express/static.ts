/**
 * @module express/static
 * `express.static(root, options)`: serve-static, the middleware Express 4 exports under that name
 * (files under `root` through `send`: conditional GET, ranges, dotfiles, index files, redirects
 * of directories to their trailing slash, `fallthrough` to the next handler).
 * @example
 *   app.use('/assets', express.static('public', { maxAge: '1d' }))
 */
import serveStatic from 'serve-static';

export const staticFiles = serveStatic;
