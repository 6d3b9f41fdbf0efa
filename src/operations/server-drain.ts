/**
 * @module operations/server-drain
 * Closes a server gracefully: no new connections, requests in flight finish, each connection is
 * closed once it has nothing in flight, and whatever is still open at the deadline is cut.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Http2SecureServer, ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** What a drain had to cut at its deadline. */
export interface DrainReport {
  /** Connections (HTTP/2 sessions included) still open at the deadline, destroyed. */
  cut: number;
}

export interface Drainable {
  /**
   * Stops accepting, lets requests in flight finish and closes connections as they fall idle; after
   * `timeoutMs` destroys what is left. Resolves once every connection is closed. Calling it again
   * returns the same drain.
   */
  drain(timeoutMs: number): Promise<DrainReport>;
  /** Destroys every connection now (a plain `close()` that does not wait). */
  closeAll(): void;
}

/** How often idle keep-alive connections are looked for while draining (HTTP/1 over TCP). */
const IDLE_SWEEP_MS = 50;

/**
 * Prepares `server` for a graceful drain. Call right after creating it, before it accepts: an
 * HTTP/2 server (TLS, with HTTP/1.1 by ALPN) has its sessions and connections tracked from then on,
 * since node can neither list them nor close its idle HTTP/1.1 connections.
 * @example
 *   const drainer = drainable(server);
 *   process.once('SIGTERM', () => drainer.drain(10_000).then(() => process.exit(0)));
 */
export function drainable(server: Server | Http2SecureServer): Drainable {
  return 'closeAllConnections' in server ? plainDrainable(server) : tlsDrainable(server);
}

/**
 * Node's HTTP/1 server: `close()` closes the connections idle at that moment only, and a response
 * in flight still promises keep-alive, so responses started from now on say `Connection: close`
 * (RFC 9112 §9.6) and idle connections are swept until none is left.
 */
function plainDrainable(server: Server): Drainable {
  let draining: Promise<DrainReport> | undefined;
  const drain = (timeoutMs: number): Promise<DrainReport> => {
    draining ??= new Promise((resolve) => {
      let cut = 0;
      markLastResponses(server);
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      const deadline = setTimeout(() => {
        server.getConnections((_err, count) => {
          cut = count;
          server.closeAllConnections();
        });
      }, Math.max(0, timeoutMs));
      server.close(() => {
        clearInterval(sweep);
        clearTimeout(deadline);
        resolve({ cut });
      });
    });
    return draining;
  };
  return { drain, closeAll: () => server.closeAllConnections() };
}

/**
 * Node's HTTP/2 secure server: HTTP/2 sessions get GOAWAY by `session.close()` and end once their
 * streams have; HTTP/1.1 connections on it are counted by the requests they have in flight.
 */
function tlsDrainable(server: Http2SecureServer): Drainable {
  const sockets = new Set<Socket>();
  const secured = new Set<TLSSocket>();
  const sessions = new Set<ServerHttp2Session>();
  const busy = new Map<Socket, number>();
  let draining: Promise<DrainReport> | undefined;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    secured.add(socket);
    socket.once('close', () => secured.delete(socket));
  });
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    if (draining !== undefined) session.close();
  });
  const onHttp1 = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.httpVersionMajor !== 1) return;
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (busy.get(socket) ?? 1) - 1;
      if (left > 0) busy.set(socket, left);
      else busy.delete(socket);
      if (left <= 0 && draining !== undefined) socket.destroy();
    });
  };
  server.on('request', onHttp1);
  server.on('checkContinue', onHttp1);
  const closeAll = (): void => {
    for (const session of sessions) session.destroy();
    for (const socket of sockets) socket.destroy();
  };
  const drain = (timeoutMs: number): Promise<DrainReport> => {
    draining ??= new Promise((resolve) => {
      let cut = 0;
      markLastResponses(server);
      for (const session of sessions) session.close();
      // An HTTP/1.1 connection with no request in flight is idle; HTTP/2 ones end with their session.
      for (const socket of secured) if (socket.alpnProtocol !== 'h2' && !busy.has(socket)) socket.destroy();
      const deadline = setTimeout(() => {
        cut = sockets.size;
        closeAll();
      }, Math.max(0, timeoutMs));
      server.close(() => {
        clearTimeout(deadline);
        resolve({ cut });
      });
    });
    return draining;
  };
  return { drain, closeAll };
}

/** HTTP/1 requests from now on get `Connection: close`, so their connection ends with them. */
function markLastResponses(server: Server | Http2SecureServer): void {
  const last = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.httpVersionMajor === 1 && !res.headersSent) res.shouldKeepAlive = false;
  };
  server.prependListener('request', last);
  server.prependListener('checkContinue', last);
}
