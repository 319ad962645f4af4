import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `server` on a free port of 127.0.0.1; its base URL. */
export async function listenLocally(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server` at once, its open (keep-alive) connections too. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}
