import { spawn } from 'node:child_process';
import { createServer, Server } from 'node:net';
import { once } from 'node:events';
import { findFreePort, listensOn } from './free-port';

/** listensOn tells which process holds a port: what lets a test tell its own child from another process on the port. */
describe('listensOn (which process listens on a port)', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  it('is true for the process that listens, false for another process and for a port nobody listens on', async () => {
    expect(listensOn(process.pid, port)).toBe(true);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], { stdio: 'ignore' });
    try {
      await once(child, 'spawn');
      expect(listensOn(child.pid, port)).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
    expect(listensOn(process.pid, await findFreePort())).toBe(false);
    expect(listensOn(undefined, port)).toBe(false);
  });
});
