/**
 * @module http/secure-server
 * An app's TLS listener: HTTP/2 and HTTP/1.1 on one port, chosen by ALPN (RFC 7301), TLS 1.2 at
 * least (tls/credentials). HTTP/1.1 requests are the app's own Request/Response classes, HTTP/2
 * ones http/http2-messages' classes with the same conveniences.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSecureServer, Http2ServerResponse, type Http2SecureServer, type SecureServerOptions } from 'node:http2';
import type { Duplex } from 'node:stream';
import { HttpError } from '../errors/http-error.js';
import { sendProblem } from '../errors/problem.js';
import { TLS_MIN_VERSION } from '../tls/credentials.js';
import { answerClientError, refuseConnect } from './client-error.js';
import { Http2Request, Http2Response } from './http2-messages.js';
import { adoptRequest, dispatchAwaitingContinue, type Request } from './request.js';
import { adoptResponse, type Response } from './response.js';
import { flushPerTurnUnlessHttp2 } from './turn-flush.js';

export interface SecureServerClasses {
  /** The HTTP/1.1 request class (Request, or FastRequest with the `incomingMessage` fast path). */
  Request: typeof Request;
  /** The HTTP/1.1 response class (Response, or FastResponse with the `outHeaders` fast path). */
  Response: typeof Response;
  /** Whether HTTP/1.1 responses finished in one turn leave together (http/turn-flush). */
  turnFlush: boolean;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Creates (without listening) the TLS server for `listener` (an app). `options` are node:http2's
 * (`cert`, `key`, `ca`, `ciphers`, …); `allowHTTP1` is always on, and `minVersion` may raise TLS 1.2
 * to 1.3 but not lower it.
 * @example
 *   createAppSecureServer(app, { Request, Response, turnFlush: false }, { cert, key }).listen(8443)
 */
export function createAppSecureServer(listener: Listener, classes: SecureServerClasses, options: SecureServerOptions = {}): Http2SecureServer {
  const server = createSecureServer(
    {
      ...options,
      allowHTTP1: true,
      minVersion: options.minVersion === 'TLSv1.3' ? 'TLSv1.3' : TLS_MIN_VERSION,
      Http1IncomingMessage: classes.Request,
      Http1ServerResponse: classes.Response as unknown as typeof ServerResponse,
      Http2ServerRequest: Http2Request,
      Http2ServerResponse: Http2Response,
    },
    // Both kinds go to the app, which tells them apart (an HTTP/2 request is typed as a Request).
    listener as never,
  );
  if (classes.turnFlush) server.on('secureConnection', flushPerTurnUnlessHttp2);
  server.on('checkContinue', dispatchAwaitingContinue);
  // Emitted for HTTP/1.1 connections only: an HTTP/2 session's protocol errors are its own.
  server.on('clientError', answerClientError);
  server.on('connect', refuseConnectEither);
  // Typed as node's plain secure server: its class parameters concern only the listener's arguments.
  return server as unknown as Http2SecureServer;
}

const CONNECT_REFUSED = new HttpError(400, 'This server does not open tunnels (CONNECT)', { code: 'ROA_ERR_CONNECT_NOT_SUPPORTED' });

/**
 * CONNECT (RFC 9110 §9.3.6) asks for a tunnel, which roa does not open. HTTP/1.1 hands over the raw
 * socket (http/client-error answers on it); HTTP/2 a request and response on the stream (RFC 9113
 * §8.5), which get the problem.
 */
function refuseConnectEither(req: IncomingMessage, target: Duplex | Http2ServerResponse): void {
  if (target instanceof Http2ServerResponse) sendProblem(adoptRequest(req), adoptResponse(target), CONNECT_REFUSED);
  else refuseConnect(req, target);
}
