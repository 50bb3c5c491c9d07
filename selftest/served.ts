import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server answering with `handler` on a port of its own while `body` runs with its URL, closed when it ends. */
export async function served<T>(handler: RequestListener, body: (url: string) => T | Promise<T>): Promise<T> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
