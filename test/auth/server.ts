/**
 * @module test/auth/server
 * Starts a loopback server on port 0 whose handler authenticates with an Authenticator and answers
 * JSON: the caller on success, `{ status, code, message, headers, extensions }` on HttpError.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError } from '../../src/errors/http-error.js';
import { Request } from '../../src/http/request.js';
import { Response } from '../../src/http/response.js';

export interface TestServer {
  url: string;
  server: Server<typeof Request, typeof Response>;
  close(): Promise<void>;
}

export type Handler = (req: Request, res: Response) => Promise<void>;

/** Serves `handler`; HttpErrors become JSON with their status and headers, anything else a 500. */
export async function serve(handler: Handler): Promise<TestServer> {
  const server = createServer({ IncomingMessage: Request, ServerResponse: Response }, (rq, rs) => {
    const req = rq as Request;
    const res = rs as unknown as Response;
    req.originalUrl = req.url ?? '/';
    handler(req, res).catch((err: unknown) => {
      if (err instanceof HttpError) {
        for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
        res.statusCode = err.status;
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ status: err.status, code: err.code, message: err.message, extensions: err.extensions }));
      } else {
        res.statusCode = 500;
        res.end(JSON.stringify({ status: 500, message: String(err) }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
