/**
 * @module express/view
 * Express 4's view lookup: a template name becomes a file under one of the `views` roots, with the
 * `view engine` extension when the name has none, `name/index.ext` as the fallback; the engine is
 * the one registered with `app.engine` or, failing that, the module named by the extension
 * (its `__express` export), loaded as Express would load it.
 */
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, extname, join, resolve } from 'node:path';

/** An engine as Express calls it: `(path, options, callback)`. */
export type ViewEngine = (path: string, options: Record<string, unknown>, callback: (err: unknown, html?: string) => void) => void;

export interface ViewOptions {
  defaultEngine?: string;
  root?: string | string[];
  engines: Record<string, ViewEngine>;
}

// Engines named only by an extension are required from the app's working directory first (where
// the app's own node_modules are), then from roa's.
const requireFromApp = createRequire(join(process.cwd(), 'noop.js'));
const requireFromRoa = createRequire(import.meta.url);

function loadEngineModule(name: string): { __express?: unknown } {
  try {
    return requireFromApp(name) as { __express?: unknown };
  } catch (err) {
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND') throw err;
    return requireFromRoa(name) as { __express?: unknown };
  }
}

/** One template, found on disk when constructed (`path` is undefined when it was not found). */
export class View {
  defaultEngine: string | undefined;
  ext: string;
  name: string;
  root: string | string[] | undefined;
  engine: ViewEngine;
  path: string | undefined;

  constructor(name: string, options: ViewOptions) {
    this.defaultEngine = options.defaultEngine;
    this.ext = extname(name);
    this.name = name;
    this.root = options.root;
    if (!this.ext && !this.defaultEngine) throw new Error('No default engine was specified and no extension was provided.');
    let fileName = name;
    if (!this.ext) {
      const engine = this.defaultEngine!;
      this.ext = engine[0] === '.' ? engine : '.' + engine;
      fileName += this.ext;
    }
    if (!options.engines[this.ext]) {
      const mod = this.ext.slice(1);
      const fn = loadEngineModule(mod).__express;
      if (typeof fn !== 'function') throw new Error(`Module "${mod}" does not provide a view engine.`);
      options.engines[this.ext] = fn as ViewEngine;
    }
    this.engine = options.engines[this.ext]!;
    this.path = this.lookup(fileName);
  }

  /** The first root holding the file (or its `index` fallback). */
  lookup(name: string): string | undefined {
    const roots = ([] as Array<string | undefined>).concat(this.root);
    for (const root of roots) {
      const loc = resolve(root ?? '', name);
      const found = this.resolve(dirname(loc), basename(loc));
      if (found !== undefined) return found;
    }
    return undefined;
  }

  render(options: Record<string, unknown>, callback: (err: unknown, html?: string) => void): void {
    this.engine(this.path!, options, callback);
  }

  /** `dir/file`, else `dir/<file without ext>/index<ext>`, whichever is a file. */
  resolve(dir: string, file: string): string | undefined {
    const direct = join(dir, file);
    if (isFile(direct)) return direct;
    const index = join(dir, basename(file, this.ext), 'index' + this.ext);
    if (isFile(index)) return index;
    return undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
