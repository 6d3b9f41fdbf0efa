/**
 * @module http/client-error
 * Answers requests node's HTTP parser refuses before any handler sees them (a header section over
 * the size limit, a byte not allowed in a request line or a field, a request that took too long)
 * with a problem+json body like every other refusal, instead of node's bare status line.
 */
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { PROBLEM_TYPE_BASE } from '../errors/problem.js';

/** Parser error codes that have a more precise status than 400 (the ones node itself maps). */
const STATUS_BY_CODE: Record<string, [status: number, slug: string, detail: string]> = {
  HPE_HEADER_OVERFLOW: [431, 'header-too-large', 'The request line and header fields exceed the server limit'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'chunk-extensions-too-large', 'The chunk extensions exceed the server limit'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request-timeout', 'The request took too long to arrive'],
  // CONNECT asks a forward proxy for a tunnel (RFC 9110 §9.3.6); roa is an origin and a reverse
  // proxy, so the request is the client's mistake (a 501 would blame the server).
  ROA_CONNECT_REFUSED: [400, 'connect-not-supported', 'This server does not open tunnels (CONNECT)'],
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

/** Set once a socket's parser error is being answered: the parser repeats it for every later chunk. */
const ANSWERING = Symbol('roa.answeringClientError');

/** The node internals this listener reads: the response owning the socket, and the parser's message. */
type ServerSocket = Duplex & {
  [ANSWERING]?: boolean;
  _httpMessage?: ServerResponse | null;
  parser?: { incoming?: IncomingMessage | null } | null;
};

/**
 * A `clientError` listener for http.Server. Requests pipelined ahead of the refused one were parsed
 * and dispatched already: their responses go first, in order (RFC 9112 §9.3.2), then the problem,
 * then the connection closes. The refused bytes may be the body of a dispatched request (a bad
 * chunk): that request gets the problem in place of its response if that has not started, else
 * the connection is cut, as node does, since raw bytes would corrupt a response on the wire.
 * @example
 *   server.on('clientError', answerClientError);
 */
export function answerClientError(err: Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number }, socket: Duplex): void {
  const s = socket as ServerSocket;
  if (s[ANSWERING] === true) {
    // node's request timer fired while an earlier response was still awaited: give up on it.
    if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.destroy();
    return;
  }
  s[ANSWERING] = true;
  if (err.code === 'ECONNRESET' || err.code === 'EPIPE' || !socket.writable) {
    socket.destroy();
    return;
  }
  const incoming = s.parser?.incoming;
  const broken = incoming != null && !incoming.complete ? incoming : undefined;
  const head = broken !== undefined ? broken.method === 'HEAD' : refusedIsHead(err);
  afterEarlierResponses(s, broken, () => socket.end(clientErrorResponse(err.code, head), () => socket.destroy()));
}

/**
 * Runs `answer` once every response ahead of the refused request has been handed to the socket
 * (node assigns the socket to each pipelined response in turn; 'finish' follows its last write).
 * When the refused bytes belong to `broken`, a dispatched request, its own response decides: not
 * started, the problem takes its place; complete, it leaves and the connection closes without a
 * second answer; half-written (it may wait for the body that will never come), the connection is cut.
 */
function afterEarlierResponses(socket: ServerSocket, broken: IncomingMessage | undefined, answer: () => void): void {
  let brokenAnswered = false;
  const step = (): void => {
    // A response with `Connection: close`, or the peer, ended the connection: nothing more to say.
    if (socket.destroyed || !socket.writable) return;
    const current = socket._httpMessage;
    if (current == null) {
      if (brokenAnswered) socket.end(() => socket.destroy());
      else answer();
      return;
    }
    if (current.req === broken) {
      if (!current.headersSent) {
        answer();
        return;
      }
      if (!current.writableEnded) {
        socket.destroy();
        return;
      }
      brokenAnswered = true;
    }
    let waited = false;
    const next = (): void => {
      if (waited) return;
      waited = true;
      step();
    };
    current.once('finish', next);
    current.once('close', next);
  };
  step();
}

/**
 * Whether the refused request is a HEAD (its answer then has no body). Without a message object the
 * method is known only from the raw bytes: the refused request starts after the last header
 * section that ended before the error (a request pipelined ahead of it), else at the packet start.
 */
function refusedIsHead(err: { rawPacket?: Buffer; bytesParsed?: number }): boolean {
  const packet = err.rawPacket;
  if (packet === undefined) return false;
  const upTo = typeof err.bytesParsed === 'number' ? Math.min(err.bytesParsed, packet.length) : packet.length;
  const ended = packet.subarray(0, upTo).lastIndexOf('\r\n\r\n');
  const start = ended === -1 ? 0 : ended + 4;
  return packet.subarray(start, start + 5).toString('latin1') === 'HEAD ';
}

/**
 * A `connect` listener for http.Server: node hands CONNECT requests over as a raw socket and, with
 * no listener, drops the connection without a word. They get a problem like any other refusal.
 * @example
 *   server.on('connect', refuseConnect);
 */
export function refuseConnect(_req: IncomingMessage, socket: Duplex): void {
  answerClientError(Object.assign(new Error('CONNECT refused'), { code: 'ROA_CONNECT_REFUSED' }), socket);
}
