/**
 * @module errors/problem
 * RFC 9457 problem details: JSON (`application/problem+json`) or, when the client prefers XML,
 * the XML form of Appendix B (`application/problem+xml`).
 */
import { STATUS_CODES } from 'node:http';
import { negotiate } from '../http/accepts.js';
import type { Request } from '../http/request.js';
import type { Response } from '../http/response.js';
import { HttpError, statusOf } from './http-error.js';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  [extension: string]: unknown;
}

export interface ProblemOptions {
  /** `production` never shows 5xx details; defaults to NODE_ENV or development. */
  env?: string;
}

const PROBLEM_BASE = 'https://roa.dev/problems/';

/** The problem document for an error; 5xx details stay inside the process in production. */
export function problemFromError(err: unknown, options: ProblemOptions = {}): Problem {
  const production = (options.env ?? process.env.NODE_ENV ?? 'development') === 'production';
  const status = statusOf(err);
  const http = err instanceof HttpError ? err : undefined;
  const code = http?.code ?? (status >= 500 ? 'ROA_ERR_INTERNAL' : `ROA_ERR_${status}`);
  const problem: Problem = {
    type: http?.type ?? PROBLEM_BASE + code.replace(/^ROA_ERR_/, '').toLowerCase().replace(/_/g, '-'),
    title: STATUS_CODES[status] ?? 'Error',
    status,
  };
  const expose = http ? http.expose : status < 500;
  if (err instanceof Error && (expose || (!production && status < 500))) problem.detail = err.message;
  if (http) {
    for (const [k, v] of Object.entries(http.extensions)) {
      if (!(k in problem)) problem[k] = v;
    }
  }
  return problem;
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const escape = (s: string): string => s.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]!);

function xmlValue(name: string, value: unknown): string {
  if (Array.isArray(value)) return `<${name}>${value.map((v) => xmlValue('i', v)).join('')}</${name}>`;
  if (value !== null && typeof value === 'object') {
    return `<${name}>${Object.entries(value).map(([k, v]) => xmlValue(/^[A-Za-z_][\w.-]*$/.test(k) ? k : 'field', v)).join('')}</${name}>`;
  }
  return `<${name}>${escape(String(value))}</${name}>`;
}

/** RFC 9457 Appendix B: the problem as XML in the `urn:ietf:rfc:7807` namespace. */
export function problemToXml(problem: Problem): string {
  const members = Object.entries(problem).map(([k, v]) => xmlValue(/^[A-Za-z_][\w.-]*$/.test(k) ? k : 'extension', v)).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><problem xmlns="urn:ietf:rfc:7807">${members}</problem>`;
}

/**
 * Writes an error as a problem response with its headers (Allow, WWW-Authenticate, ...).
 * Errors carry no Cache-Control: they are not representations a cache should keep.
 */
export function sendProblem(req: Request, res: Response, err: unknown, options: ProblemOptions = {}): void {
  if (res.headersSent) {
    req.socket.destroy();
    return;
  }
  const problem = problemFromError(err, options);
  const wantsXml = negotiate(req.headers.accept, ['application/json', 'application/xml']) === 'application/xml'
    && req.headers.accept !== undefined && !/^\s*\*\/\*\s*$/.test(req.headers.accept);
  const body = wantsXml ? problemToXml(problem) : JSON.stringify(problem);
  res.statusCode = problem.status;
  res.removeHeader('Cache-Control');
  res.removeHeader('ETag');
  res.removeHeader('Last-Modified');
  if (err instanceof HttpError) {
    for (const [name, value] of Object.entries(err.headers)) res.setHeader(name, value);
  } else if (err !== null && typeof err === 'object' && 'headers' in err && typeof (err as { headers: unknown }).headers === 'object') {
    for (const [name, value] of Object.entries((err as { headers: Record<string, string> }).headers ?? {})) res.setHeader(name, value);
  }
  res.setHeader('Content-Type', wantsXml ? 'application/problem+xml; charset=utf-8' : 'application/problem+json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}
