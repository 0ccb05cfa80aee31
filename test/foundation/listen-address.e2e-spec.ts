import { existsSync, readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayProcess, startGatewayProcess } from '@test/support/gateway-process';
import { waitFor } from '@test/support/wait-for';

/** The local address of the LISTEN socket on `port` (IPv4, dotted), read from /proc/net/tcp. */
function boundIpv4Address(port: number): string | undefined {
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 4 || fields[3] !== '0A') continue;
    const [hex, portHex] = fields[1].split(':');
    if (parseInt(portHex, 16) !== port) continue;
    return [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
  }
  return undefined;
}

/** Issue 9 #11: the start-up log named 127.0.0.1 while the socket listened on 0.0.0.0. */
(existsSync('/proc/net/tcp') ? describe : describe.skip)(
  'the gateway listens on HOST and logs the address it bound',
  () => {
    let dir: string;
    let gateway: GatewayProcess | undefined;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'gw-listen-'));
    });
    afterEach(async () => {
      await gateway?.stop();
      gateway = undefined;
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const listeningLine = async (gw: GatewayProcess) =>
      waitFor(() => /Listening on (\S+) \(/.exec(gw.outputTail())?.[1], {
        timeoutMs: 10_000,
        description: 'the Listening log line',
      });

    it.each([
      ['0.0.0.0', '0.0.0.0'],
      ['127.0.0.1', '127.0.0.1'],
    ])('HOST=%s: binds %s and the log names that address', async (host, bound) => {
      gateway = await startGatewayProcess({
        databaseUrl: `sqlite:${join(dir, `gw-${bound}.sqlite`)}`,
        env: { HOST: host, LOG_LEVEL: 'log' },
      });
      expect(boundIpv4Address(gateway.port)).toBe(bound);
      expect(await listeningLine(gateway)).toBe(`http://${bound}:${gateway.port}`);
    });
  },
);
