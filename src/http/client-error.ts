/**
 * @module http/client-error
 * Answers requests node's HTTP parser refuses before any handler sees them (a header section over
 * the size limit, a byte not allowed in a request line or a field, a request that took too long)
 * with a problem+json body like every other refusal, instead of node's bare status line.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_TYPE_BASE } from '../errors/problem.js';

/** Parser error codes that have a more precise status than 400 (the ones node itself maps). */
const STATUS_BY_CODE: Record<string, [status: number, slug: string, detail: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'header-too-large', 'The request line and header fields exceed the server limit'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'chunk-extensions-too-large', 'The chunk extensions exceed the server limit'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request-timeout', 'The request took too long to arrive'],
};
const MALFORMED: [number, string, string] = [400, 'malformed-request', 'The request is not valid HTTP/1.1'];

/**
 * The raw response for a parser error: problem+json, and the connection closes (its framing is lost).
 * `head`: the request was a HEAD, so the body is left out (a client would read it as garbage).
 */
export function clientErrorResponse(code: string | undefined, head = false): string {
  const [status, slug, detail] = (code !== undefined ? STATUS_BY_CODE[code] : undefined) ?? MALFORMED;
  const body = JSON.stringify({ type: PROBLEM_TYPE_BASE + slug, title: STATUS_CODES[status], status, detail });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/problem+json\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Cache-Control: no-store\r\n' +
    'Connection: close\r\n\r\n' +
    (head ? '' : body)
  );
}

/**
 * A `clientError` listener for http.Server. Like node's default it stays silent when the peer is
 * gone or a response has started on the wire (raw bytes would corrupt it), and the connection
 * does not outlive the answer.
 * @example
 *   server.on('clientError', answerClientError);
 */
export function answerClientError(err: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { _headerSent?: boolean } | null })._httpMessage;
  if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable || inFlight?._headerSent === true) {
    socket.destroy();
    return;
  }
  // The method is known only from the bytes the parser refused (when the request line came in them).
  const head = err.rawPacket !== undefined && err.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(clientErrorResponse(err.code, head), () => socket.destroy());
}
