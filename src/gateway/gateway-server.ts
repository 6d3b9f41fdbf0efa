/**
 * @module gateway/gateway-server
 * The gateway's listener: plain HTTP/1.1, or with `tls` one TLS listener offering HTTP/2 and
 * HTTP/1.1 by ALPN (RFC 7301), TLS 1.2 at least.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSecureServer, Http2ServerResponse, type Http2SecureServer } from 'node:http2';
import type { Duplex } from 'node:stream';
import { HttpError } from '../errors/http-error.js';
import { answerClientError, refuseConnect } from '../http/client-error.js';
import { flushPerTurn, flushPerTurnUnlessHttp2 } from '../http/turn-flush.js';
import { drainable, type DrainReport } from '../operations/server-drain.js';
import { TLS_MIN_VERSION } from '../tls/credentials.js';
import { sendProblem } from './problem.js';

/** The gateway's server: node:http's, or with TLS node:http2's secure server (its `setSecureContext` swaps the certificate). */
export type GatewayServer = Server | Http2SecureServer;

/** A PEM certificate (chain) and key; `loadTlsCredentials` (tls/credentials) reads and checks a pair. */
export interface GatewayTls {
  cert: Buffer | string;
  key: Buffer | string;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface GatewayListener {
  server: GatewayServer;
  /** Ends every open connection (HTTP/2 sessions included), for `close()`. */
  closeConnections(): void;
  /** Stops accepting and lets requests in flight finish, cutting what is left after `timeoutMs` (operations/server-drain). */
  drain(timeoutMs: number): Promise<DrainReport>;
}

/**
 * Creates the listener and attaches what both kinds share: `onRequest` for requests and for
 * `Expect: 100-continue` ones (`checkContinue`: the origin decides whether it wants the body, RFC
 * 9110 §10.1.1), problems for what node's parser refuses, CONNECT refused. `turnFlush`: hits
 * answered in one event-loop turn leave together at its end (http/turn-flush).
 */
export function createGatewayServer(tls: GatewayTls | undefined, onRequest: Listener, turnFlush: boolean): GatewayListener {
  if (tls === undefined) {
    // Host is checked by scanRequest, which answers with a problem rather than node's bare 400.
    const server = createServer({ requireHostHeader: false }, onRequest);
    if (turnFlush) server.on('connection', flushPerTurn);
    server.on('clientError', answerClientError);
    server.on('connect', refuseConnect);
    server.on('checkContinue', onRequest);
    const { drain, closeAll } = drainable(server);
    return { server, closeConnections: closeAll, drain };
  }
  // node's HTTP/1.1 over this listener does not require Host either: scanRequest checks it. HTTP/2
  // requests come as node's compatibility objects, which the gateway's steps use only through what
  // they share with node:http's (gateway/exchange), hence the cast.
  const server = createSecureServer({ allowHTTP1: true, minVersion: TLS_MIN_VERSION, cert: tls.cert, key: tls.key }, onRequest as never);
  const { drain, closeAll } = drainable(server);
  if (turnFlush) server.on('secureConnection', flushPerTurnUnlessHttp2);
  server.on('clientError', answerClientError);
  server.on('connect', refuseConnectEither);
  server.on('checkContinue', onRequest as never);
  return { server, closeConnections: closeAll, drain };
}

const CONNECT_REFUSED = new HttpError(400, 'Bad Request', {
  code: 'ROA_ERR_CONNECT_NOT_SUPPORTED',
  extensions: { detail: 'This server does not open tunnels (CONNECT)' },
});

/**
 * CONNECT on the TLS listener: HTTP/1.1 hands over the raw socket (http/client-error's refusal),
 * HTTP/2 a request and response on the stream (RFC 9113 §8.5), which get the problem.
 */
function refuseConnectEither(req: IncomingMessage, target: Duplex | Http2ServerResponse): void {
  if (target instanceof Http2ServerResponse) sendProblem(target as unknown as ServerResponse, CONNECT_REFUSED, 'roa; detail=refused');
  else refuseConnect(req, target);
}
