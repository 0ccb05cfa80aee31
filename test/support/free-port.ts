import { createServer } from 'node:net';

/**
 * A TCP port of 127.0.0.1 that was free a moment ago (the OS picks it). Another process may take it
 * before the caller binds it, so a caller that cannot bind should ask again.
 */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
