import type { AddressInfo, Server } from 'node:net';

/** Listens on the port (0: one the system gives) and host; resolves to the port, or rejects when it cannot listen. */
export async function listening(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
