/**
 * @module gateway/request-scan
 * One pass over a request's raw fields: what the hit path may skip, and what the gateway refuses.
 */
import type { ServerResponse } from 'node:http';
import { HttpError } from '../errors/http-error.js';
import { isValidHost } from '../http/host.js';
import { sendProblem } from './problem.js';

/** Nothing that needs the full RFC 9111 evaluation: a fresh stored response answers it as it is. */
export const PLAIN = 0;
/** Request Cache-Control/Pragma, conditionals or Range: the full evaluation decides. */
export const SLOW = 1;
/** Authorization, Authentication or Cookie: the response is personal, never looked up nor stored. */
export const CREDENTIALS = 2;
/** Refusals (400), numbered above every kind that is served. */
export const INVALID_HOST = 3;
export const CONTENT_NOT_ALLOWED = 4;
export type Refusal = typeof INVALID_HOST | typeof CONTENT_NOT_ALLOWED;
export type RequestKind = typeof PLAIN | typeof SLOW | typeof CREDENTIALS | Refusal;

/** The last Host value found valid: on the hit path a repeated value is checked by comparison alone. */
let lastValidHost: string | undefined;

/**
 * One pass over rawHeaders instead of materialising `req.headers` on the hit path: finds
 * credentials (never cached), the fields that need the full RFC 9111 evaluation (request
 * Cache-Control/Pragma, conditionals, Range), and what the gateway refuses: a Host that is
 * missing on HTTP/1.1, repeated or invalid (RFC 9112 §3.2), and content on GET or HEAD
 * (`bodiless`). Such content has no defined meaning (RFC 9110 §9.3.1-2) and no place in a cache
 * key, and forwarding it is how a body becomes the next request on a pooled connection.
 *
 * On HTTP/2 the authority comes as the `:authority` pseudo-header (RFC 9113 §8.3.1): it counts as
 * the Host, and a Host beside it must name the same authority. node's HTTP/2 layer has refused
 * repeated or unknown pseudo-headers already.
 */
export function scanRequest(raw: readonly string[], hostRequired: boolean, bodiless: boolean): RequestKind {
  let kind: typeof PLAIN | typeof SLOW = PLAIN;
  let credentials = false;
  let content = false;
  let hosts = 0;
  let host: string | undefined;
  let authority: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === 'host') {
          const value = raw[i + 1]!;
          if (++hosts > 1) return INVALID_HOST;
          if (value !== lastValidHost) {
            if (!isValidHost(value)) return INVALID_HOST;
            lastValidHost = value;
          }
          host = value;
        }
        break;
      case 10:
        if (name === ':authority') {
          const value = raw[i + 1]!;
          if (value !== lastValidHost) {
            if (!isValidHost(value)) return INVALID_HOST;
            lastValidHost = value;
          }
          authority = value;
        }
        break;
      case 6: {
        const l = name.toLowerCase();
        if (l === 'cookie') credentials = true;
        else if (l === 'pragma') kind = SLOW;
        break;
      }
      case 13: {
        const l = name.toLowerCase();
        if (l === 'authorization') credentials = true;
        else if (l === 'cache-control' || l === 'if-none-match') kind = SLOW;
        break;
      }
      case 14: {
        const l = name.toLowerCase();
        if (l === 'authentication') credentials = true;
        // node's parser has checked the digits; any non-zero one means content.
        else if (l === 'content-length' && /[1-9]/.test(raw[i + 1]!)) content = true;
        break;
      }
      case 5:
        if (name.toLowerCase() === 'range') kind = SLOW;
        break;
      case 17: {
        const l = name.toLowerCase();
        if (l === 'if-modified-since') kind = SLOW;
        else if (l === 'transfer-encoding') content = true;
        break;
      }
    }
  }
  if (authority !== undefined) {
    if (host !== undefined && host.toLowerCase() !== authority.toLowerCase()) return INVALID_HOST;
  } else if (hosts === 0 && hostRequired) return INVALID_HOST;
  if (content && bodiless) return CONTENT_NOT_ALLOWED;
  return credentials ? CREDENTIALS : kind;
}

/** The connection closes after a refusal: what follows on it may not be what it seems. */
const REFUSALS: Record<Refusal, HttpError> = {
  [INVALID_HOST]: new HttpError(400, 'Bad Request', {
    code: 'ROA_ERR_INVALID_HOST',
    headers: { Connection: 'close' },
    extensions: { detail: 'A request needs exactly one Host header field (or HTTP/2 :authority) holding a valid authority (RFC 9112 §3.2, RFC 9113 §8.3.1)' },
  }),
  [CONTENT_NOT_ALLOWED]: new HttpError(400, 'Bad Request', {
    code: 'ROA_ERR_CONTENT_NOT_ALLOWED',
    headers: { Connection: 'close' },
    extensions: { detail: 'A GET or HEAD request must not carry content' },
  }),
};

export function refuse(res: ServerResponse, kind: Refusal): void {
  sendProblem(res, REFUSALS[kind], 'roa; detail=refused');
}
