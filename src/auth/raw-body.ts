/**
 * @module auth/raw-body
 * Reads the request body once (bounded) for Content-Digest checks, caching it on `req.rawBody` so the
 * body parsers that run later reuse the bytes instead of waiting on a drained stream.
 */
import { HttpError } from '../errors/http-error.js';
import type { Request } from '../http/request.js';

export type ReadRawBody = (req: Request, options: { limit: number }) => Promise<Buffer>;

/** The raw body, or a 413 once more than `limit` bytes arrived (RFC 9110 §15.5.14). */
export const readRawBodyOnce: ReadRawBody = async (req, { limit }) => {
  if (req.rawBody !== undefined) return req.rawBody;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, 'Request body too large', { code: 'ROA_ERR_BODY_TOO_LARGE' });
    chunks.push(chunk);
  }
  req.rawBody = Buffer.concat(chunks);
  return req.rawBody;
};
