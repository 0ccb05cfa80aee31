import { connect, type Socket } from 'node:net';
import { createTestDatabaseUrl, type TestDatabase } from '@test/support/test-database';
import { startGatewayProcess, type GatewayProcess } from '@test/support/gateway-process';
import { waitFor } from '@test/support/wait-for';
import { expectStatus, openSession, seedAgent, type SeededAgent } from '@test/crash/support/gateway-runtime.seed';
import { CrashRemoteServer } from '@test/crash/support/crash-remote.server';
import { SdkMcpServer } from '@test/executors/support/sdk-mcp.server';

const TOOL = 'ledger_write';

/** A side-effecting HTTP tool on the remote, which answers `delayMs` late the first time for a `ref`. */
const ledgerTool = (remote: CrashRemoteServer) => ({
  name: TOOL,
  description: 'writes to the ledger',
  parameters: {
    type: 'object',
    properties: { ref: { type: 'string' }, delayMs: { type: 'integer' } },
    required: ['ref'],
  },
  serviceType: 'HTTP',
  httpMethod: 'POST',
  endpoint: remote.url('/ledger'),
  sideEffect: 'SIDE_EFFECT',
});

/** One raw HTTP/1.1 connection to the gateway: requests are written as given, answers read as they come. */
class RawConnection {
  private readonly socket: Socket;
  private received = '';
  readonly closed: Promise<void>;

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('utf8');
    this.socket.on('data', (chunk: string) => (this.received += chunk));
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
  }

  send(method: string, path: string, headers: Record<string, string>, body?: unknown): void {
    const text = body === undefined ? '' : JSON.stringify(body);
    const head = Object.entries({ host: '127.0.0.1', ...headers, 'content-length': String(Buffer.byteLength(text)) })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    this.socket.write(
      `${method} ${path} HTTP/1.1\r\n${head}${body === undefined ? '' : 'content-type: application/json\r\n'}\r\n${text}`,
    );
  }

  /** Writes raw bytes: part of a request, to finish later. */
  write(text: string): void {
    this.socket.write(text);
  }

  /** The answers read until the server closed the connection: status, headers (lower case) and JSON body. */
  async answers(): Promise<Array<{ status: number; headers: Record<string, string>; body: any }>> {
    await this.closed;
    return this.received
      .split(/(?=HTTP\/1\.1 \d{3} )/)
      .filter((part) => part.length > 0)
      .map((part) => {
        const [head, body] = part.split('\r\n\r\n');
        const [statusLine, ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(
          lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
        );
        return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
      });
  }
}

/** Resolves once the gateway no longer accepts connections (its server is closing). */
function untilRefusingConnections(port: number): Promise<void> {
  return waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const probe = connect(port, '127.0.0.1');
        probe.once('connect', () => (probe.destroy(), resolve(false)));
        probe.once('error', () => resolve(true));
      }),
    { timeoutMs: 5_000 },
  ).then(() => undefined);
}

/** SIGTERM while a call is in flight (a rolling deploy): the call is finished and answered, not cut. */
describe('graceful shutdown', () => {
  let db: TestDatabase;
  let remote: CrashRemoteServer;
  let mcp: SdkMcpServer;
  const started: GatewayProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabaseUrl('sqlite');
    remote = await new CrashRemoteServer().start();
    mcp = await new SdkMcpServer().start();
  });
  afterAll(async () => {
    await Promise.all(started.map((gw) => gw.kill()));
    await remote?.stop();
    await mcp?.stop();
    await db?.drop();
  });

  async function gatewayWithSession(env: Record<string, string> = {}): Promise<{
    gw: GatewayProcess;
    seeded: SeededAgent;
    sessionId: string;
  }> {
    const gw = await startGatewayProcess({ databaseUrl: db.url, env });
    started.push(gw);
    const slowMcpTool = {
      name: 'mcp_slow',
      description: 'waits on the MCP server',
      parameters: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
      serviceType: 'MCP_REMOTE',
      endpoint: mcp.url,
      remoteName: 'slow',
      sideEffect: 'SIDE_EFFECT',
    };
    const seeded = await seedAgent(gw, `t${started.length}`, [ledgerTool(remote), slowMcpTool]);
    return { gw, seeded, sessionId: await openSession(gw, seeded) };
  }

  /** The session's journal as a new gateway process on the same database reads it. */
  async function journalAfterRestart(sessionId: string): Promise<{ items: unknown[] }> {
    const next = await startGatewayProcess({ databaseUrl: db.url });
    started.push(next);
    return expectStatus(
      await next.call('GET', `/api/v1/admin/sessions/${sessionId}/journal`, undefined, next.admin),
      200,
      'journal',
    );
  }

  it('answers a call in flight at SIGTERM with its result, closing its connection, then exits', async () => {
    const { gw, seeded, sessionId } = await gatewayWithSession();
    const connection = new RawConnection(gw.port);
    const act = { iteration: 1, toolCalls: [{ id: 'c1', name: TOOL, arguments: { ref: 'drain-1', delayMs: 1500 } }] };
    connection.send('POST', `/api/v1/sessions/${sessionId}/act`, { ...seeded.runtime, connection: 'keep-alive' }, act);
    await waitFor(() => remote.hits('drain-1') === 1);

    gw.signal('SIGTERM');
    await untilRefusingConnections(gw.port);
    const [answered, ...more] = await connection.answers();
    expect(more).toEqual([]);
    expect(answered.status).toBe(200);
    expect(answered.headers.connection).toBe('close');
    expect(answered.body.results).toEqual([
      expect.objectContaining({ toolCallId: 'c1', status: 'COMPLETED', content: '{"done":"drain-1","n":1}' }),
    ]);
    expect(await gw.exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(remote.hits('drain-1')).toBe(1);

    const journal = await journalAfterRestart(sessionId);
    expect(journal.items).toEqual([expect.objectContaining({ toolCallId: 'c1', state: 'COMPLETED' })]);
  });

  it("answers a request arriving while it closes with 503 SHUTTING_DOWN in the contract's error shape", async () => {
    const gw = await startGatewayProcess({ databaseUrl: db.url });
    started.push(gw);
    const connection = new RawConnection(gw.port);
    // The request has begun to arrive: its connection is not idle, so the shutdown does not close it.
    connection.write('GET /api/v1/admin/tools HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    // A round trip on another connection after those bytes: the gateway has read them by its end.
    expectStatus(await gw.call('GET', '/health'), 200, 'health');

    gw.signal('SIGTERM');
    await untilRefusingConnections(gw.port);
    connection.write(`authorization: ${gw.admin.Authorization}\r\n\r\n`);
    const [answered, ...more] = await connection.answers();
    expect(more).toEqual([]);
    expect(answered.status).toBe(503);
    expect(answered.headers.connection).toBe('close');
    expect(answered.body).toEqual({
      error: {
        code: 'SHUTTING_DOWN',
        message:
          'This gateway instance is shutting down and took nothing of this request; send it again (to another instance).',
        details: {},
      },
    });
    expect(await gw.exited).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('keeps the MCP session of a call in flight at SIGTERM open until the call is answered', async () => {
    const { gw, seeded, sessionId } = await gatewayWithSession();
    const callsBefore = mcp.toolCalls;
    mcp.holdSlowCalls();
    const act = gw.call(
      'POST',
      `/api/v1/sessions/${sessionId}/act`,
      { iteration: 1, toolCalls: [{ id: 'm1', name: 'mcp_slow', arguments: { ms: 1 } }] },
      seeded.runtime,
    );
    await waitFor(() => mcp.toolCalls === callsBefore + 1);
    gw.signal('SIGTERM');
    await untilRefusingConnections(gw.port);
    mcp.releaseSlowCalls();

    const answered = await act;
    expect(answered.status).toBe(200);
    expect(answered.body.results).toEqual([
      expect.objectContaining({ toolCallId: 'm1', status: 'COMPLETED', content: 'waited 1' }),
    ]);
    expect(mcp.cancelled).toEqual([]);
    expect(await gw.exited).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('exits at SHUTDOWN_GRACE_MS as a crash would, leaving a call still running to the journal, never marked failed', async () => {
    const { gw, seeded, sessionId } = await gatewayWithSession({ SHUTDOWN_GRACE_MS: '200' });
    const act = gw.call(
      'POST',
      `/api/v1/sessions/${sessionId}/act`,
      { iteration: 1, toolCalls: [{ id: 'c2', name: TOOL, arguments: { ref: 'drain-2', delayMs: 4000 } }] },
      seeded.runtime,
    );
    await waitFor(() => remote.hits('drain-2') === 1);
    gw.signal('SIGTERM');

    expect(await gw.exited).toEqual({ code: 1, signal: null });
    await expect(act).rejects.toThrow();
    const journal = await journalAfterRestart(sessionId);
    // As after a crash: the recovery (lease, then the HITL queue for a side effect) owns it.
    expect(journal.items).toEqual([expect.objectContaining({ toolCallId: 'c2', state: 'STARTED' })]);
  });
});
