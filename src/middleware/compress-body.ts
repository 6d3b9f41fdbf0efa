/**
 * @module middleware/compress-body
 * One whole body compressed as gzip or br, in line or on zlib's thread pool.
 */
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import type { ResponseCoding } from '../http/coded-etag.js';

/** gzip level (1-9) and br quality (0-11). */
export interface CodingLevels {
  gzip: number;
  br: number;
}

function brotliOptions(body: Buffer, quality: number) {
  // The size hint lets br pick its window; text mode suits XML and JSON.
  return { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: body.length, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };
}

export function compressSync(coding: ResponseCoding, body: Buffer, levels: CodingLevels): Buffer {
  return coding === 'br' ? brotliCompressSync(body, brotliOptions(body, levels.br)) : gzipSync(body, { level: levels.gzip });
}

export function compress(coding: ResponseCoding, body: Buffer, levels: CodingLevels, cb: (err: Error | null, coded: Buffer) => void): void {
  if (coding === 'br') brotliCompress(body, brotliOptions(body, levels.br), cb);
  else gzip(body, { level: levels.gzip }, cb);
}
