import type { ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { OutboundGuard } from '@app/modules/executors/outbound/outbound-guard';
import { OutboundHttpAgent } from '@app/modules/executors/outbound/outbound-http.agent';
import { HttpToolExecutor } from '@app/modules/executors/http/http-tool.executor';
import { ToolCallPolicy } from '@app/modules/executors/call-policy/tool-call-policy';
import { toolFixture } from '@test/support/tool-fixture';
import { executorTestConfig, headersResolverOf, invocationOf } from './support/executor-fixtures';
import { RecordingHttpServer } from './support/recording-http.server';

type CallContext = { tenantId: string | null; userId: string | null; sessionId: string | null; toolCallId: string };

/**
 * What an HTTP tool's remote receives, and what it must never receive: the HTTP executor under the call policy
 * (as the call path runs it) against a real loopback server that records every request.
 */
describe('HttpToolExecutor: path placeholders and the call context (real loopback server)', () => {
  const server = new RecordingHttpServer();
  const config = executorTestConfig();
  const agent = new OutboundHttpAgent(new OutboundGuard(config), config);
  const executor = new HttpToolExecutor(agent, headersResolverOf(config));
  const policy = new ToolCallPolicy(config);
  const run = (tool: ToolDescriptor, args: Record<string, unknown>, ctx: CallContext) =>
    policy.run(tool, (attempt, signal) => executor.execute({ ...invocationOf(tool, args, attempt, signal), ...ctx }));
  const ctx = (overrides: Partial<CallContext> = {}): CallContext => ({
    tenantId: 'acme',
    userId: 'u1',
    sessionId: 's-1',
    toolCallId: 'call_1',
    ...overrides,
  });

  beforeAll(() => server.start());
  afterAll(async () => {
    await agent.onApplicationShutdown();
    await server.stop();
  });
  beforeEach(() => {
    server.requests.length = 0;
    server.handler = (_req, res) => {
      res.statusCode = 200;
      res.end('{"ok":true}');
    };
  });

  describe('a path placeholder value that would leave its segment', () => {
    const profile = () =>
      toolFixture({
        name: 'user_profile',
        endpoint: server.url('/api/tenants/acme/users/{id}/profile'),
        httpMethod: 'GET',
      });

    it.each([
      '..',
      '.',
      '%2e%2e',
      '%2E.',
      '.%2E',
      '%252e%252e',
      '..;x',
      '../../admin',
      'a/b',
      'a%2fb',
      '..\\admin',
      'a\\b',
      '%5C',
    ])('refuses %j as a FAILED call naming the parameter: nothing reaches the server', async (id) => {
      const outcome = await run(profile(), { id }, ctx());
      expect(outcome.attempts).toBe(1);
      expect(outcome.error).toMatchObject({ errorClass: 'INVALID_REQUEST', transient: false, reachedRemote: false });
      expect(outcome.error?.message).toContain('argument "id"');
      expect(server.requests).toHaveLength(0);
    });

    it('sends an ordinary value into its own segment', async () => {
      const outcome = await run(profile(), { id: 'bob.smith' }, ctx());
      expect(outcome.output?.content).toBe('{"ok":true}');
      expect(server.requests.map((r) => r.url)).toEqual(['/api/tenants/acme/users/bob.smith/profile']);
    });
  });

  describe('the call context', () => {
    const lookup = (overrides: Partial<ToolDescriptor> = {}) =>
      toolFixture({ name: 'lookup', endpoint: server.url('/lookup'), httpMethod: 'POST', ...overrides });

    it('sends X-Tenant-Id, X-User-Id, X-Session-Id, X-Tool-Call-Id and an Idempotency-Key that is not the bare toolCallId', async () => {
      await run(lookup(), { q: 1 }, ctx());
      const [req] = server.requests;
      expect(req.headers).toMatchObject({
        'x-tenant-id': 'acme',
        'x-user-id': 'u1',
        'x-session-id': 's-1',
        'x-tool-call-id': 'call_1',
      });
      expect(req.headers['idempotency-key']).toMatch(/^gw1-[A-Za-z0-9_-]{43}$/);
    });

    it('gives the same toolCallId different keys in other sessions and tenants, and the same key again on a re-run', async () => {
      await run(lookup(), {}, ctx());
      await run(lookup(), {}, ctx({ sessionId: 's-2' }));
      await run(lookup(), {}, ctx({ tenantId: 'globex', sessionId: 's-3' }));
      await run(lookup(), {}, ctx({ sessionId: null }));
      await run(lookup(), {}, ctx());
      const keys = server.requests.map((r) => r.headers['idempotency-key']);
      expect(new Set(keys.slice(0, 4)).size).toBe(4);
      expect(keys[4]).toBe(keys[0]);
      expect(server.requests[3].headers['x-session-id']).toBeUndefined();
    });

    it('keeps the key across retries of one call (503, then 200)', async () => {
      server.handler = (req, res) => {
        res.statusCode = req.n === 1 ? 503 : 200;
        res.end(req.n === 1 ? 'busy' : 'fine');
      };
      const outcome = await run(lookup({ sideEffect: 'READ_ONLY' }), {}, ctx());
      expect(outcome).toMatchObject({ output: { content: 'fine' }, attempts: 2 });
      const [first, second] = server.requests;
      expect(second.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
      expect(second.headers['x-tool-call-id']).toBe('call_1');
    });

    it('overwrites context headers a tool defines, so a tenant tool cannot claim another tenant', async () => {
      await run(
        lookup({
          headers: {
            'X-Tenant-Id': 'globex',
            'X-User-Id': 'root',
            'Idempotency-Key': 'fixed',
            'X-Session-Id': 'forged',
          },
        }),
        {},
        ctx({ sessionId: null }),
      );
      const [req] = server.requests;
      expect(req.headers['x-tenant-id']).toBe('acme');
      expect(req.headers['x-user-id']).toBe('u1');
      expect(req.headers['idempotency-key']).not.toBe('fixed');
      expect(req.headers['x-session-id']).toBeUndefined();
    });

    it('sends a userId holding CR/LF or non-ASCII percent-encoded, as one header, instead of failing or splitting it', async () => {
      const outcome = await run(lookup(), {}, ctx({ userId: '张三\r\nX-Tenant-Id: globex' }));
      expect(outcome.output?.content).toBe('{"ok":true}');
      const [req] = server.requests;
      expect(req.headers['x-user-id']).toBe('%E5%BC%A0%E4%B8%89%0D%0AX-Tenant-Id:%20globex');
      expect(decodeURIComponent(req.headers['x-user-id'] as string)).toBe('张三\r\nX-Tenant-Id: globex');
      expect(req.headers['x-tenant-id']).toBe('acme');
    });
  });
});
