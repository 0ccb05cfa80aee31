import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { toolFixture } from '@test/support/tool-fixture';
import { waitFor } from '@test/support/wait-for';
import { CatalogMcpServer, catalogTool } from '@test/mcp-services/support/catalog-mcp.server';
import { executorTestConfig } from './support/executor-fixtures';
import { McpHarness } from './support/mcp-harness';

const IDLE_MS = 300;

const pingTool = (url: string, headers: Record<string, string>): ToolDescriptor =>
  toolFixture({
    name: 'idle_ping',
    serviceType: 'MCP_REMOTE',
    endpoint: url,
    remoteName: 'ping',
    httpMethod: null,
    headers,
  });

describe('McpClientPool closes sessions no call used for MCP_SESSION_IDLE_MS', () => {
  const server = new CatalogMcpServer([catalogTool('ping')], { label: 'idle' });
  let pool: McpHarness;
  /** The X-Key header of each session the server saw closed (DELETE), in order. */
  const closedWith = () => server.requests.filter((r) => r.method === 'DELETE').map((r) => r.headers['x-key']);

  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => {
    server.requests.length = 0;
    pool = new McpHarness(executorTestConfig({ MCP_SESSION_IDLE_MS: String(IDLE_MS) }));
  });
  afterEach(() => pool.close());

  it('closes the session of headers no longer sent (a rotated secret) and keeps the one in use', async () => {
    // The pool's clock is the test's: a call that a loaded machine holds up never makes a session in use look idle.
    let now = performance.now();
    const clock = jest.spyOn(performance, 'now').mockImplementation(() => now);
    try {
      expect((await pool.call(pingTool(server.url, { 'X-Key': 'old' }))).output?.content).toBe('idle:ping:{}');
      // From now on the tool sends other headers (its secret was rotated): a session of their own.
      const rotated = pingTool(server.url, { 'X-Key': 'new' });
      expect((await pool.call(rotated)).error).toBeUndefined();
      now += IDLE_MS;
      expect((await pool.call(rotated)).error).toBeUndefined();
      now += 1; // the old headers' session: unused for longer than IDLE_MS; the new one's: used IDLE_MS - 1 ago
      await waitFor(() => closedWith().length > 0, { description: 'the old session to be closed' });
      expect(closedWith()).toEqual(['old']);
      expect(pool.pool.stats().servers).toHaveLength(1);

      // Unused, it goes too; a later call opens a new session and works.
      now += IDLE_MS;
      await waitFor(() => closedWith().length === 2, { description: 'the unused session to be closed' });
      expect(closedWith()).toEqual(['old', 'new']);
      expect((await pool.call(rotated)).error).toBeUndefined();
      expect(pool.pool.stats().totalConnects).toBe(3);
    } finally {
      clock.mockRestore();
    }
  });

  it('keeps one session to a watched server, the one used last, and closes its other idle ones', async () => {
    let now = performance.now();
    const clock = jest.spyOn(performance, 'now').mockImplementation(() => now);
    const stopWatching = pool.pool.onToolsListChanged(server.url, () => undefined);
    try {
      // Sessions of every set of headers the server was called with (a rotated secret, another calling tenant).
      expect((await pool.call(pingTool(server.url, { 'X-Key': 'old' }))).error).toBeUndefined();
      const rotated = pingTool(server.url, { 'X-Key': 'new' });
      expect((await pool.call(rotated)).error).toBeUndefined();
      now += IDLE_MS;
      expect((await pool.call(rotated)).error).toBeUndefined();
      now += 1;
      await waitFor(() => closedWith().length > 0, { description: 'the old headers session to be closed' });
      expect(closedWith()).toEqual(['old']);

      // Unused for long, the session used last stays: its stream is how the server tells of changes.
      now += IDLE_MS * 4;
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 2));
      expect(closedWith()).toEqual(['old']);
      expect(pool.pool.stats().servers).toMatchObject([{ connected: true }]);
    } finally {
      stopWatching();
      clock.mockRestore();
    }
  });

  it('keeps the session to a server watched for tools/list_changed, however long it is unused', async () => {
    const stopWatching = pool.pool.onToolsListChanged(server.url, () => undefined);
    try {
      expect((await pool.call(pingTool(server.url, { 'X-Key': 'watched' }))).error).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 4));
      expect(closedWith()).toEqual([]);
      expect(pool.pool.stats().servers).toMatchObject([{ connected: true }]);
    } finally {
      stopWatching();
    }
  });
});
