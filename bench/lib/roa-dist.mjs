/** @module Where the roa build under test lives: ../dist, or the directory of $ROA_DIST (another build's dist/index.js). */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Absolute path of the dist directory the bench servers load roa from. */
export const DIST_DIR = process.env.ROA_DIST
  ? path.dirname(path.resolve(process.env.ROA_DIST))
  : fileURLToPath(new URL('../../dist/', import.meta.url));

/**
 * Imports a module of the build by its path inside dist (`service.js`, `auth/basic.js`).
 * @example
 *   const { startService } = await roa('service.js');
 */
export function roa(rel) {
  return import(pathToFileURL(path.join(DIST_DIR, rel)).href);
}
