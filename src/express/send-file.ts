/**
 * @module express/send-file
 * `res.sendFile` and `res.download` on the `send` package (conditional GET, ranges, dotfiles,
 * root confinement, Cache-Control), reporting the outcome once: sent, aborted by the client,
 * a directory, or an error (404/403/… as `err.status`).
 */
import { isAbsolute, resolve } from 'node:path';
import type { ServerResponse } from 'node:http';
import contentDisposition from 'content-disposition';
import onFinished from 'on-finished';
import send from 'send';
import type { Request } from '../http/request.js';

export type SendFileOptions = send.SendOptions & {
  /** Headers set when the file is sent (not on errors). */
  headers?: Record<string, string | number | string[]>;
};

export type SendFileCallback = (err?: Error & { code?: string; status?: number; syscall?: string }) => void;

type FileError = Error & { code?: string; status?: number; syscall?: string };

/**
 * Streams the file at `path` (absolute, or relative to `options.root`) as the response; `done`
 * receives the outcome. Without `done`, a directory falls through (`next()`) and every error but a
 * client's abort or a failed write goes to `next(err)`, as Express 4 does.
 */
export function sendFile(req: Request, res: ServerResponse, path: unknown, options: SendFileOptions | SendFileCallback | undefined, callback?: SendFileCallback): void {
  let done = callback;
  let opts: SendFileOptions = (options as SendFileOptions | undefined) ?? {};
  if (!path) throw new TypeError('path argument is required to res.sendFile');
  if (typeof path !== 'string') throw new TypeError('path must be a string to res.sendFile');
  if (typeof options === 'function') {
    done = options;
    opts = {};
  }
  if (!opts.root && !isAbsolute(path)) throw new TypeError('path must be absolute or specify root to res.sendFile');
  stream(req, res, send(req, encodeURI(path), opts), opts, done ?? defaultOutcome(req));
}

/** Express 4's deprecated `res.sendfile`: the path as given (not URI-encoded), no absoluteness check. */
export function sendFileLegacy(req: Request, res: ServerResponse, path: string, options: SendFileOptions | SendFileCallback | undefined, callback?: SendFileCallback): void {
  let done = callback;
  let opts: SendFileOptions = (options as SendFileOptions | undefined) ?? {};
  if (typeof options === 'function') {
    done = options;
    opts = {};
  }
  stream(req, res, send(req, path, opts), opts, done ?? defaultOutcome(req));
}

/**
 * `res.download(path, [filename], [options], [callback])`: the file as an attachment named
 * `filename` (or after `path`), by `sendFile`; a caller's Content-Disposition header is ignored.
 */
export function download(req: Request, res: ServerResponse, path: string, filename?: unknown, options?: unknown, callback?: unknown): void {
  let done = callback as SendFileCallback | undefined;
  let name = filename as string | null | undefined;
  let opts = (options ?? null) as SendFileOptions | null;
  if (typeof filename === 'function') {
    done = filename as SendFileCallback;
    name = null;
    opts = null;
  } else if (typeof options === 'function') {
    done = options as SendFileCallback;
    opts = null;
  }
  if (typeof filename === 'object' && filename !== null && (typeof options === 'function' || options === undefined)) {
    name = null;
    opts = filename as SendFileOptions;
  }
  const headers: Record<string, string | number | string[]> = { 'Content-Disposition': contentDisposition(name || path) };
  if (opts?.headers) {
    for (const key of Object.keys(opts.headers)) {
      if (key.toLowerCase() !== 'content-disposition') headers[key] = opts.headers[key]!;
    }
  }
  // The caller's options object stays untouched; its other options still apply.
  const merged = Object.create(opts) as SendFileOptions;
  merged.headers = headers;
  sendFile(req, res, merged.root ? path : resolve(path), merged, done);
}

function defaultOutcome(req: Request): SendFileCallback {
  const next = req.next!;
  return (err) => {
    if (err && err.code === 'EISDIR') {
      next();
      return;
    }
    if (err && err.code !== 'ECONNABORTED' && err.syscall !== 'write') next(err);
  };
}

function coded(message: string, code: string): FileError {
  const err: FileError = new Error(message);
  err.code = code;
  return err;
}

/** Pipes `file` into `res` and calls `callback` exactly once with how it ended. */
function stream(_req: Request, res: ServerResponse, file: send.SendStream, options: SendFileOptions, callback: SendFileCallback): void {
  let settled = false;
  let streaming: boolean | undefined;
  const settle = (err?: FileError): void => {
    if (settled) return;
    settled = true;
    callback(err);
  };
  const aborted = (): void => settle(coded('Request aborted', 'ECONNABORTED'));

  file.on('directory', () => settle(coded('EISDIR, read', 'EISDIR')));
  file.on('end', () => settle());
  file.on('error', (err: FileError) => settle(err));
  file.on('file', () => {
    streaming = false;
  });
  file.on('stream', () => {
    streaming = true;
  });
  onFinished(res, (err) => {
    if (err && (err as FileError).code === 'ECONNRESET') return aborted();
    if (err) return settle(err);
    if (settled) return;
    // 'end' of the file stream may come just after the response finished: wait a turn before
    // calling a transfer that started streaming but never ended an abort.
    setImmediate(() => {
      if (streaming !== false && !settled) aborted();
      else settle();
    });
  });
  const headers = options.headers;
  if (headers) {
    file.on('headers', (out: ServerResponse) => {
      for (const key of Object.keys(headers)) out.setHeader(key, headers[key]!);
    });
  }
  file.pipe(res);
}
