/**
 * @module http/open-connections
 * The connections a server has open, for closing them all: node's HTTP/2 server has no
 * `closeAllConnections`, and its `close()` waits for every session to end by itself.
 */
import type { Server, Socket } from 'node:net';

/**
 * Tracks `server`'s connections from now on; the returned function destroys every one still open.
 * @example
 *   const closeAll = trackConnections(server);
 *   server.close(done); closeAll();
 */
export function trackConnections(server: Server): () => void {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return () => {
    for (const socket of open) socket.destroy();
  };
}
