import type { INestApplication } from '@nestjs/common';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { loadGatewayConfig, type GatewayConfig } from '@app/config/gateway-config';
import { createGatewayApp } from '@app/bootstrap/create-gateway-app';
import { createTestDatabaseUrl, type TestDatabase, type TestDialect } from './test-database';

export const TEST_ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export interface TestGateway {
  app: INestApplication;
  config: GatewayConfig;
  /** supertest bound to the app's HTTP server. */
  http: ReturnType<typeof request>;
  /** `Authorization` header of the platform admin. */
  admin: { Authorization: string };
  close(): Promise<void>;
}

/** Unpacked skill releases of this test worker's gateways (not the repository's data/). */
const SKILL_CACHE_DIR_OF_THIS_WORKER = join(tmpdir(), `gw-test-skill-cache-${process.pid}`);

/**
 * Starts the whole gateway in-process on `databaseUrl` (migrations run first), as `npm start` does,
 * with test-friendly defaults that each test may override through `env`.
 */
export async function startTestGateway(databaseUrl: string, env: Record<string, string> = {}): Promise<TestGateway> {
  const config = loadGatewayConfig({
    NODE_ENV: 'test',
    ADMIN_API_KEY: TEST_ADMIN_KEY,
    DATABASE_URL: databaseUrl,
    DEMO_TOOLS_ENABLED: 'false',
    MCP_REPAIR_ENABLED: 'false',
    JOURNAL_SWEEP_INTERVAL_MS: '0',
    LOG_LEVEL: 'error',
    SKILL_CACHE_DIR: SKILL_CACHE_DIR_OF_THIS_WORKER,
    ...env,
  });
  const app = await createGatewayApp(config, { logger: false });
  return {
    app,
    config,
    http: request(app.getHttpServer()),
    admin: { Authorization: `Bearer ${TEST_ADMIN_KEY}` },
    close: () => app.close(),
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Makes a key of `role` for `tenantId` through the API and returns its Authorization header. */
export async function createKey(
  gw: TestGateway,
  tenantId: string,
  role: 'admin' | 'runtime' = 'runtime',
): Promise<{ Authorization: string }> {
  const res = await gw.http
    .post('/api/v1/admin/api-keys')
    .set(gw.admin)
    .send({ name: `${role}-${tenantId}`, role, tenantId })
    .expect(201);
  return bearer(res.body.key);
}

/**
 * A model provider body; override any field. Its API key is the platform secret MODEL_KEY: the gateway's TOOL_SECRETS
 * must hold it.
 */
export function providerBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `p-${Math.random().toString(36).slice(2, 8)}`,
    kind: 'OPENAI_COMPATIBLE',
    baseUrl: 'https://models.example.com/v1',
    apiKey: '${secret:MODEL_KEY}',
    model: 'm',
    ...extra,
  };
}

/** A minimal valid tool body; override any field. */
export function toolBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `tool_${Math.random().toString(36).slice(2, 10)}`,
    description: 'A test tool.',
    parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    serviceType: 'HTTP',
    endpoint: 'http://127.0.0.1:9/echo',
    httpMethod: 'POST',
    permissionTags: [],
    sideEffect: 'READ_ONLY',
    ...overrides,
  };
}

/**
 * A side-effecting tool's fields whose `command` argument the risk detector reads as a shell command: a risky
 * command waits for a human (spread into `toolBody` or `agentWithTool`'s tool).
 */
export const SHELL_TOOL_FIELDS = {
  sideEffect: 'SIDE_EFFECT',
  parameters: {
    type: 'object',
    properties: { command: { type: 'string', 'x-risk': 'shell' } },
    required: ['command'],
  },
} as const;

/**
 * A tenant's tool (`tool`: {@link toolBody} overrides) and an agent of the tenant bound to it (`agent`: fields of the
 * agent's body beside its tenant, e.g. a name or maxIterations).
 */
export async function agentWithTool(
  gw: TestGateway,
  tenantId: string,
  tool: Record<string, unknown>,
  agent: Record<string, unknown> = {},
): Promise<{ toolId: string; agentId: string }> {
  const toolId = (
    await gw.http
      .post('/api/v1/admin/tools')
      .set(gw.admin)
      .send(toolBody({ tenantId, ...tool }))
      .expect(201)
  ).body.id as string;
  const agentId = (
    await gw.http
      .post('/api/v1/admin/agents')
      .set(gw.admin)
      .send({ name: `agent_${Math.random().toString(36).slice(2, 10)}`, tenantId, ...agent })
      .expect(201)
  ).body.id as string;
  await gw.http
    .put(`/api/v1/admin/agents/${agentId}/tools`)
    .set(gw.admin)
    .send({ toolIds: [toolId] })
    .expect(200);
  return { toolId, agentId };
}

/** A new session of `agentId` opened with `runtime` (a runtime key of the agent's tenant); its id. */
export async function openSession(
  gw: TestGateway,
  runtime: { Authorization: string },
  agentId: string,
): Promise<string> {
  return (
    await gw.http.post('/api/v1/sessions').set(runtime).send({ agentId, userId: 'u1', permissions: [] }).expect(201)
  ).body.id as string;
}

/** {@link agentWithTool} and a session of the agent: what an `act` test starts from. */
export async function sessionWithTool(
  gw: TestGateway,
  runtime: { Authorization: string },
  tenantId: string,
  tool: Record<string, unknown>,
): Promise<{ toolId: string; agentId: string; sessionId: string }> {
  const made = await agentWithTool(gw, tenantId, tool);
  return { ...made, sessionId: await openSession(gw, runtime, made.agentId) };
}

/**
 * How long a suite's gateway may take to start: on a fresh MariaDB database it runs every migration (DDL), which
 * takes a few seconds on a quiet machine but passed Jest's 30 s default in a CI run while the other worker ran
 * DDL-heavy suites on the same server. The tests do not measure start-up.
 */
const GATEWAY_START_TIMEOUT_MS = 120_000;

/**
 * One gateway on a fresh database of `dialect` for a whole `describe` block: started in beforeAll,
 * closed and dropped in afterAll. Read `suite.gw` inside tests.
 */
export function gatewayForSuite(
  dialect: TestDialect,
  env: Record<string, string> = {},
): { gw: TestGateway; db: TestDatabase } {
  const suite = {} as { gw: TestGateway; db: TestDatabase };
  beforeAll(async () => {
    suite.db = await createTestDatabaseUrl(dialect);
    suite.gw = await startTestGateway(suite.db.url, env);
  }, GATEWAY_START_TIMEOUT_MS);
  afterAll(async () => {
    await suite.gw?.close();
    await suite.db?.drop();
  });
  return suite;
}
