/** @module test/helpers/ports — loopback port numbers for tests. */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A 127.0.0.1 port the kernel had free a moment ago: bound once to learn a number, then released, so
 * nothing listens there (connections are refused) until a test starts something on it.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
