import { gzipSync } from 'node:zlib';
import {
  bearer,
  createKey,
  gatewayForSuite,
  providerBody,
  toolBody,
  type TestGateway,
} from '@test/support/gateway-test-app';
import { fastifyRoutesOf, routesOf, type AppRoute } from '@test/support/app-routes';
import { skillMd, uploadJsonSkill } from '@test/support/skill-fixture';
import { buildTestZip } from '@test/support/test-zip.writer';
import { workspaceRootForSuite } from '@test/workspace/workspace-test-kit';
import { describeEachDialect } from '@test/support/test-database';

/**
 * Every route the app registers (read from Nest's routing metadata, so a new route is in the matrix at once) against
 * the contract's key rules: no, malformed, unknown or deleted key → 401; a key of a role the route is not for → 403;
 * a key of tenant B gets no 2xx on tenant A's resources (404: they do not exist for it) and creates nothing in
 * tenant A; a tenant key cannot write platform-wide rows. A new route fails here until its tenant sample is written.
 * Tenant B's id is tenant A's in other letters, on both databases: MySQL's default collation would make them one.
 */

/** Routes that need no key. */
const PUBLIC_ROUTES = new Set(['get /health', 'get /metrics']);

type Role = 'admin' | 'runtime';

/** The roles the contract gives a route: its area decides (admin API, runtime API, artifacts for both). */
function rolesOf(route: AppRoute): Role[] {
  const { method, path } = route;
  if (path.startsWith('/api/v1/admin/')) return ['admin'];
  if (path.startsWith('/api/v1/artifacts/')) return method === 'delete' ? ['admin'] : ['admin', 'runtime'];
  if (path.startsWith('/api/v1/')) return ['runtime'];
  throw new Error(`${method.toUpperCase()} ${path} is outside the contract's areas: say here which keys may call it`);
}

const key = (r: AppRoute) => `${r.method} ${r.path}`;

const A = 'tenant-a-matrix';
/** Tenant A's id in other letters: two tenants (identifiers compare exactly, on MySQL too). */
const B = 'Tenant-A-Matrix';

/** What tenant A (and the platform) hold, made through the API. */
interface Fixture {
  toolId: string;
  agentId: string;
  sessionId: string;
  toolCallId: string;
  hitlId: string;
  artifactId: string;
  kbId: string;
  docId: string;
  skillId: string;
  providerId: string;
  mcpId: string;
  apiKeyId: string;
  secretName: string;
  /** Tenant B's own agent and tool, to name A's resources from. */
  bAgentId: string;
  bToolId: string;
  bProviderId: string;
  bMcpId: string;
  /** Platform-wide rows a tenant key may not change. */
  platformToolId: string;
  platformSkillId: string;
  platformProviderId: string;
  platformMcpId: string;
}

/**
 * One request of tenant B (its admin key on admin routes, its runtime key on runtime routes). `mine`: the answer
 * may be 2xx, as the request names nothing of tenant A (a list, a check); it must then show nothing of tenant A.
 * Otherwise any answer but 2xx passes, and `status` pins the one the contract gives (404 for a path naming A's
 * resource, 403 for a platform-only write).
 */
interface Sample {
  path: string;
  body?: unknown;
  /** A multipart form instead of a body: its fields, and a skill zip as `file`. */
  form?: Record<string, string>;
  status?: number;
  mine?: true;
}

/** Bodies a route never reads for a caller it refuses: malformed, too deep, compressed, of another type. */
const HOSTILE_BODIES: Array<[string, Record<string, string>, string | Buffer]> = [
  ['malformed JSON', { 'content-type': 'application/json' }, '{"name":'],
  ['JSON nested too deep', { 'content-type': 'application/json' }, '['.repeat(100) + ']'.repeat(100)],
  ['gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, gzipSync('{"a":' + '1'.repeat(1e5))],
  ['an unknown encoding', { 'content-type': 'application/json', 'content-encoding': 'zstd' }, 'x'],
  ['text/plain', { 'content-type': 'text/plain' }, 'hello'],
  ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }, '--x\r\n\r\n--x--\r\n'],
];

const agentBody = (extra: Record<string, unknown> = {}) => ({
  name: `m-${Math.random().toString(36).slice(2, 8)}`,
  ...extra,
});
const mcpBody = (extra: Record<string, unknown> = {}) => ({
  name: `s-${Math.random().toString(36).slice(2, 8)}`,
  kind: 'STATIC',
  url: 'https://mcp.example.com/mcp',
  ...extra,
});
const skillBody = (tenantId: string | undefined, name: string) => ({
  ...(tenantId === undefined ? {} : { tenantId }),
  skillContent: skillMd(name, 'A matrix skill.'),
});

/** Tenant B's requests per route, keyed `method path` as {@link routesOf} names them. */
function samplesOf(f: Fixture): Record<string, Sample[]> {
  const s = `/api/v1/sessions/${f.sessionId}`;
  return {
    'get /health': [{ path: '/health', mine: true }],
    'get /metrics': [{ path: '/metrics', mine: true }],
    // api keys
    'post /api/v1/admin/api-keys': [
      { path: '/api/v1/admin/api-keys', body: { name: 'k', role: 'admin', tenantId: A } },
    ],
    'get /api/v1/admin/api-keys': [{ path: '/api/v1/admin/api-keys?pageSize=500', mine: true }],
    'delete /api/v1/admin/api-keys/:id': [{ path: `/api/v1/admin/api-keys/${f.apiKeyId}`, status: 404 }],
    // tools
    'post /api/v1/admin/tools': [
      { path: '/api/v1/admin/tools', body: toolBody({ tenantId: A }) },
      { path: '/api/v1/admin/tools', body: toolBody({ tenantId: null }), status: 403 },
    ],
    'post /api/v1/admin/tools/checklist': [{ path: '/api/v1/admin/tools/checklist', body: toolBody(), mine: true }],
    'get /api/v1/admin/tools': [
      { path: '/api/v1/admin/tools?pageSize=500', mine: true },
      { path: `/api/v1/admin/tools?pageSize=500&tenantId=${A}`, mine: true },
      { path: '/api/v1/admin/tools?pageSize=500&q=read_a', mine: true },
    ],
    'get /api/v1/admin/tools/:id': [{ path: `/api/v1/admin/tools/${f.toolId}`, status: 404 }],
    'get /api/v1/admin/tools/:id/checklist': [{ path: `/api/v1/admin/tools/${f.toolId}/checklist`, status: 404 }],
    'patch /api/v1/admin/tools/:id': [
      { path: `/api/v1/admin/tools/${f.toolId}`, body: { description: 'changed by B' }, status: 404 },
      { path: `/api/v1/admin/tools/${f.platformToolId}`, body: { description: 'changed by B' } },
      { path: `/api/v1/admin/tools/${f.bToolId}`, body: { tenantId: A } },
    ],
    'delete /api/v1/admin/tools/:id': [
      { path: `/api/v1/admin/tools/${f.toolId}`, status: 404 },
      { path: `/api/v1/admin/tools/${f.platformToolId}` },
    ],
    // agents and bindings
    'post /api/v1/admin/agents': [
      { path: '/api/v1/admin/agents', body: agentBody({ tenantId: A }) },
      { path: '/api/v1/admin/agents', body: agentBody({ tenantId: B, subAgentIds: [f.agentId] }) },
      { path: '/api/v1/admin/agents', body: agentBody({ tenantId: B, modelProviderId: f.providerId }) },
      { path: '/api/v1/admin/agents', body: agentBody({ tenantId: B, skillIds: [f.skillId] }) },
    ],
    'get /api/v1/admin/agents': [{ path: '/api/v1/admin/agents?pageSize=500', mine: true }],
    'get /api/v1/admin/agents/:id': [{ path: `/api/v1/admin/agents/${f.agentId}`, status: 404 }],
    'patch /api/v1/admin/agents/:id': [
      { path: `/api/v1/admin/agents/${f.agentId}`, body: { description: 'changed by B' }, status: 404 },
      { path: `/api/v1/admin/agents/${f.bAgentId}`, body: { subAgentIds: [f.agentId] } },
      { path: `/api/v1/admin/agents/${f.bAgentId}`, body: { modelProviderId: f.providerId } },
      { path: `/api/v1/admin/agents/${f.bAgentId}`, body: { skillIds: [f.skillId] } },
    ],
    'delete /api/v1/admin/agents/:id': [{ path: `/api/v1/admin/agents/${f.agentId}`, status: 404 }],
    'put /api/v1/admin/agents/:id/tools': [
      { path: `/api/v1/admin/agents/${f.agentId}/tools`, body: { toolIds: [] }, status: 404 },
      { path: `/api/v1/admin/agents/${f.bAgentId}/tools`, body: { toolIds: [f.toolId] }, status: 404 },
    ],
    'post /api/v1/admin/agents/:id/tools': [
      { path: `/api/v1/admin/agents/${f.agentId}/tools`, body: { toolId: f.bToolId }, status: 404 },
      { path: `/api/v1/admin/agents/${f.bAgentId}/tools`, body: { toolId: f.toolId }, status: 404 },
    ],
    'delete /api/v1/admin/agents/:id/tools/:toolId': [
      { path: `/api/v1/admin/agents/${f.agentId}/tools/${f.toolId}`, status: 404 },
    ],
    'put /api/v1/admin/agents/:id/skills': [
      { path: `/api/v1/admin/agents/${f.agentId}/skills`, body: { skillIds: [] }, status: 404 },
      { path: `/api/v1/admin/agents/${f.bAgentId}/skills`, body: { skillIds: [f.skillId] }, status: 404 },
    ],
    'put /api/v1/admin/agents/:id/knowledge-bases': [
      { path: `/api/v1/admin/agents/${f.agentId}/knowledge-bases`, body: { knowledgeBaseIds: [] }, status: 404 },
      { path: `/api/v1/admin/agents/${f.bAgentId}/knowledge-bases`, body: { knowledgeBaseIds: [f.kbId] }, status: 404 },
    ],
    'post /api/v1/admin/agents/:agentId/tool-specs': [
      { path: `/api/v1/admin/agents/${f.agentId}/tool-specs`, body: { userId: 'u', permissions: [] }, status: 404 },
      {
        path: `/api/v1/admin/agents/${f.bAgentId}/tool-specs`,
        body: { userId: 'u', permissions: [], sessionId: f.sessionId },
        status: 404,
      },
    ],
    'put /api/v1/admin/tenants/:tenantId/capabilities': [
      { path: `/api/v1/admin/tenants/${A}/capabilities`, body: { webSearch: true } },
      { path: `/api/v1/admin/tenants/${B}/capabilities`, body: { webSearch: true }, status: 403 },
    ],
    'get /api/v1/admin/tenants/:tenantId/capabilities': [
      { path: `/api/v1/admin/tenants/${A}/capabilities`, status: 404 },
    ],
    // secrets
    'put /api/v1/admin/tenants/:tenantId/secrets/:name': [
      { path: `/api/v1/admin/tenants/${A}/secrets/${f.secretName}`, body: { value: 'from-b' } },
      { path: `/api/v1/admin/tenants/${A}/secrets/NEW_ONE`, body: { value: 'from-b' } },
    ],
    'get /api/v1/admin/tenants/:tenantId/secrets': [{ path: `/api/v1/admin/tenants/${A}/secrets` }],
    'delete /api/v1/admin/tenants/:tenantId/secrets/:name': [
      { path: `/api/v1/admin/tenants/${A}/secrets/${f.secretName}` },
    ],
    // safety, HITL, logs
    'post /api/v1/admin/risk/evaluate': [{ path: '/api/v1/admin/risk/evaluate', body: { text: 'ls' }, mine: true }],
    'get /api/v1/admin/hitl': [
      { path: '/api/v1/admin/hitl', mine: true },
      { path: '/api/v1/admin/hitl?status=PENDING', mine: true },
    ],
    'post /api/v1/admin/hitl/:id/decision': [
      { path: `/api/v1/admin/hitl/${f.hitlId}/decision`, body: { decision: 'REJECT', reviewer: 'b' }, status: 404 },
    ],
    'get /api/v1/admin/tool-calls': [
      { path: '/api/v1/admin/tool-calls', mine: true },
      { path: `/api/v1/admin/tool-calls?sessionId=${f.sessionId}`, mine: true },
      { path: `/api/v1/admin/tool-calls?toolName=read_a`, mine: true },
    ],
    'get /api/v1/admin/sessions': [
      { path: '/api/v1/admin/sessions', mine: true },
      { path: `/api/v1/admin/sessions?agentId=${f.agentId}`, mine: true },
    ],
    'get /api/v1/admin/sessions/:id/journal': [{ path: `/api/v1/admin/sessions/${f.sessionId}/journal`, status: 404 }],
    'get /api/v1/admin/tasks': [
      { path: '/api/v1/admin/tasks', mine: true },
      { path: `/api/v1/admin/tasks?parentSessionId=${f.sessionId}`, mine: true },
    ],
    'get /api/v1/admin/feign/tools': [{ path: '/api/v1/admin/feign/tools', mine: true }],
    // MCP services
    'post /api/v1/admin/mcp-services': [
      { path: '/api/v1/admin/mcp-services', body: mcpBody({ tenantId: A }) },
      { path: '/api/v1/admin/mcp-services', body: mcpBody({ tenantId: null }), status: 403 },
    ],
    'get /api/v1/admin/mcp-services': [
      { path: '/api/v1/admin/mcp-services', mine: true },
      { path: `/api/v1/admin/mcp-services?tenantId=${A}`, mine: true },
    ],
    'get /api/v1/admin/mcp-services/:id': [{ path: `/api/v1/admin/mcp-services/${f.mcpId}`, status: 404 }],
    'patch /api/v1/admin/mcp-services/:id': [
      { path: `/api/v1/admin/mcp-services/${f.mcpId}`, body: { url: 'https://other.example.com/mcp' }, status: 404 },
      { path: `/api/v1/admin/mcp-services/${f.platformMcpId}`, body: { url: 'https://other.example.com/mcp' } },
      { path: `/api/v1/admin/mcp-services/${f.bMcpId}`, body: { tenantId: A } },
      { path: `/api/v1/admin/mcp-services/${f.bMcpId}`, body: { tenantId: null } },
    ],
    'delete /api/v1/admin/mcp-services/:id': [
      { path: `/api/v1/admin/mcp-services/${f.mcpId}`, status: 404 },
      { path: `/api/v1/admin/mcp-services/${f.platformMcpId}` },
    ],
    'get /api/v1/admin/mcp-services/:id/tools': [{ path: `/api/v1/admin/mcp-services/${f.mcpId}/tools`, status: 404 }],
    'post /api/v1/admin/mcp-services/:id/sync': [
      { path: `/api/v1/admin/mcp-services/${f.mcpId}/sync`, status: 404 },
      { path: `/api/v1/admin/mcp-services/${f.platformMcpId}/sync` },
    ],
    // knowledge bases
    'post /api/v1/admin/knowledge-bases': [
      { path: '/api/v1/admin/knowledge-bases', body: { name: 'kb-b', tenantId: A, kind: 'INTERNAL' } },
    ],
    'get /api/v1/admin/knowledge-bases': [{ path: '/api/v1/admin/knowledge-bases', mine: true }],
    'get /api/v1/admin/knowledge-bases/:id': [{ path: `/api/v1/admin/knowledge-bases/${f.kbId}`, status: 404 }],
    'delete /api/v1/admin/knowledge-bases/:id': [{ path: `/api/v1/admin/knowledge-bases/${f.kbId}`, status: 404 }],
    'post /api/v1/admin/knowledge-bases/:id/search': [
      { path: `/api/v1/admin/knowledge-bases/${f.kbId}/search`, body: { query: 'handbook' }, status: 404 },
    ],
    'post /api/v1/admin/knowledge-bases/:id/documents': [
      {
        path: `/api/v1/admin/knowledge-bases/${f.kbId}/documents`,
        body: { title: 't', content: 'c', mimeType: 'text/plain' },
        status: 404,
      },
    ],
    'get /api/v1/admin/knowledge-bases/:id/documents': [
      { path: `/api/v1/admin/knowledge-bases/${f.kbId}/documents`, status: 404 },
    ],
    'get /api/v1/admin/knowledge-bases/:id/documents/:docId': [
      { path: `/api/v1/admin/knowledge-bases/${f.kbId}/documents/${f.docId}`, status: 404 },
    ],
    'delete /api/v1/admin/knowledge-bases/:id/documents/:docId': [
      { path: `/api/v1/admin/knowledge-bases/${f.kbId}/documents/${f.docId}`, status: 404 },
    ],
    // skills
    'post /api/v1/admin/skills': [
      { path: '/api/v1/admin/skills', body: skillBody(A, 'b-into-a') },
      { path: '/api/v1/admin/skills', body: skillBody(undefined, 'b-official'), status: 403 },
      {
        path: '/api/v1/admin/skills',
        body: { ...skillBody(undefined, 'b-official-null'), tenantId: null },
        status: 403,
      },
      { path: '/api/v1/admin/skills', form: { tenantId: A } },
      { path: '/api/v1/admin/skills', form: {}, status: 403 },
    ],
    'get /api/v1/admin/skills': [{ path: '/api/v1/admin/skills', mine: true }],
    'get /api/v1/admin/skills/:id': [{ path: `/api/v1/admin/skills/${f.skillId}`, status: 404 }],
    'delete /api/v1/admin/skills/:id': [
      { path: `/api/v1/admin/skills/${f.skillId}`, status: 404 },
      { path: `/api/v1/admin/skills/${f.platformSkillId}` },
    ],
    'post /api/v1/admin/skills/:id/releases': [
      { path: `/api/v1/admin/skills/${f.skillId}/releases`, body: skillBody(A, 'matrix-a'), status: 404 },
      { path: `/api/v1/admin/skills/${f.platformSkillId}/releases`, body: skillBody(undefined, 'matrix-official') },
      { path: `/api/v1/admin/skills/${f.skillId}/releases`, form: {}, status: 404 },
      { path: `/api/v1/admin/skills/${f.platformSkillId}/releases`, form: {} },
    ],
    'post /api/v1/admin/skills/:id/releases/:version/publish': [
      { path: `/api/v1/admin/skills/${f.skillId}/releases/1/publish`, status: 404 },
      { path: `/api/v1/admin/skills/${f.platformSkillId}/releases/1/publish` },
    ],
    'get /api/v1/admin/skills/:id/releases/:version/files': [
      { path: `/api/v1/admin/skills/${f.skillId}/releases/1/files`, status: 404 },
    ],
    // model providers
    'post /api/v1/admin/model-providers': [
      { path: '/api/v1/admin/model-providers', body: providerBody({ tenantId: A }) },
      { path: '/api/v1/admin/model-providers', body: providerBody({ tenantId: null }), status: 403 },
    ],
    'get /api/v1/admin/model-providers': [
      { path: '/api/v1/admin/model-providers', mine: true },
      { path: `/api/v1/admin/model-providers?tenantId=${A}`, mine: true },
    ],
    'get /api/v1/admin/model-providers/:id': [{ path: `/api/v1/admin/model-providers/${f.providerId}`, status: 404 }],
    'patch /api/v1/admin/model-providers/:id': [
      { path: `/api/v1/admin/model-providers/${f.providerId}`, body: { model: 'changed' }, status: 404 },
      { path: `/api/v1/admin/model-providers/${f.platformProviderId}`, body: { model: 'changed' } },
      { path: `/api/v1/admin/model-providers/${f.bProviderId}`, body: { tenantId: A } },
      { path: `/api/v1/admin/model-providers/${f.bProviderId}`, body: { tenantId: null } },
    ],
    'delete /api/v1/admin/model-providers/:id': [
      { path: `/api/v1/admin/model-providers/${f.providerId}`, status: 404 },
      { path: `/api/v1/admin/model-providers/${f.platformProviderId}` },
    ],
    // runtime
    'post /api/v1/agents/:agentId/tool-specs': [
      { path: `/api/v1/agents/${f.agentId}/tool-specs`, body: { userId: 'u', permissions: [] }, status: 404 },
      {
        path: `/api/v1/agents/${f.bAgentId}/tool-specs`,
        body: { userId: 'u', permissions: [], sessionId: f.sessionId },
        status: 404,
      },
    ],
    'post /api/v1/tools/:name/execute': [
      {
        path: '/api/v1/tools/read_a/execute',
        body: { agentId: f.agentId, userId: 'u', permissions: [], arguments: { q: 'x' } },
        status: 404,
      },
    ],
    'post /api/v1/sessions': [
      { path: '/api/v1/sessions', body: { agentId: f.agentId, userId: 'u', permissions: [] }, status: 404 },
    ],
    'get /api/v1/sessions/:id': [{ path: s, status: 404 }],
    'delete /api/v1/sessions/:id': [{ path: s, status: 404 }],
    'post /api/v1/sessions/:id/act': [
      {
        path: `${s}/act`,
        body: { iteration: 99, toolCalls: [{ id: 'b-call', name: 'read_a', arguments: { q: 'x' } }] },
        status: 404,
      },
    ],
    'post /api/v1/sessions/:id/resume': [
      { path: `${s}/resume`, body: { clientMessageId: 'b-1', decision: 'REJECT' }, status: 404 },
    ],
    'get /api/v1/sessions/:id/tool-results/:toolCallId': [{ path: `${s}/tool-results/${f.toolCallId}`, status: 404 }],
    'get /api/v1/sessions/:id/events': [{ path: `${s}/events`, status: 404 }],
    'get /api/v1/sessions/:id/events/stream': [{ path: `${s}/events/stream`, status: 404 }],
    'get /api/v1/sessions/:id/files': [{ path: `${s}/files`, status: 404 }],
    'get /api/v1/sessions/:id/files/content': [{ path: `${s}/files/content?path=a.txt`, status: 404 }],
    'put /api/v1/sessions/:id/files/content': [{ path: `${s}/files/content?path=b.txt`, body: 'from B', status: 404 }],
    'post /api/v1/sessions/:id/messages': [
      { path: `${s}/messages`, body: { clientMessageId: 'b-m', content: 'hello' }, status: 404 },
    ],
    'get /api/v1/sessions/:id/messages': [{ path: `${s}/messages`, status: 404 }],
    'get /api/v1/sessions/:id/runs/:runId': [{ path: `${s}/runs/run-none`, status: 404 }],
    'get /api/v1/artifacts/:id': [{ path: `/api/v1/artifacts/${f.artifactId}`, status: 404 }],
    'get /api/v1/artifacts/:id/content': [{ path: `/api/v1/artifacts/${f.artifactId}/content`, status: 404 }],
    'delete /api/v1/artifacts/:id': [{ path: `/api/v1/artifacts/${f.artifactId}`, status: 404 }],
  };
}

describeEachDialect('every route: keys, roles and tenants', (dialect) => {
  const suite = gatewayForSuite(dialect, {
    WORKSPACE_ROOT: workspaceRootForSuite(),
    SECRETS_KEY: 'b2'.repeat(32),
    TOOL_SECRETS: 'MODEL_KEY=sk-platform-matrix',
  });
  let routes: AppRoute[];
  let fx: Fixture;
  let keys: { aAdmin: { Authorization: string }; aRuntime: { Authorization: string } };
  let bKeys: Record<Role, { Authorization: string }>;

  beforeAll(async () => {
    routes = routesOf(suite.gw.app);
    ({ fx, keys } = await tenantAFixture(suite.gw));
    bKeys = { admin: await createKey(suite.gw, B, 'admin'), runtime: await createKey(suite.gw, B, 'runtime') };
    const bAgent = await suite.gw.http
      .post('/api/v1/admin/agents')
      .set(bKeys.admin)
      .send(agentBody({ tenantId: B }));
    const bTool = await suite.gw.http
      .post('/api/v1/admin/tools')
      .set(bKeys.admin)
      .send(toolBody({ tenantId: B }));
    const bProvider = await suite.gw.http
      .post('/api/v1/admin/model-providers')
      .set(bKeys.admin)
      .send(providerBody({ tenantId: B }));
    const bMcp = await suite.gw.http
      .post('/api/v1/admin/mcp-services')
      .set(bKeys.admin)
      .send(mcpBody({ tenantId: B }));
    expect([bAgent.status, bTool.status, bProvider.status, bMcp.status]).toEqual([201, 201, 201, 201]);
    fx.bAgentId = bAgent.body.id;
    fx.bToolId = bTool.body.id;
    fx.bProviderId = bProvider.body.id;
    fx.bMcpId = bMcp.body.id;
  });

  const send = (
    route: AppRoute,
    path: string,
    auth?: { Authorization: string },
    body?: unknown,
    form?: Record<string, string>,
  ) => {
    let req = suite.gw.http[route.method](path).timeout(5000);
    if (auth) req = req.set(auth);
    if (form) {
      for (const [name, value] of Object.entries(form)) req = req.field(name, value);
      const zip = buildTestZip([{ name: 'SKILL.md', data: skillMd('matrix-form', 'A skill sent as a zip.') }]);
      req = req.attach('file', zip, { filename: 'skill.zip', contentType: 'application/zip' });
    } else if (typeof body === 'string')
      req = req.set('content-type', 'application/octet-stream').send(Buffer.from(body));
    else if (body !== undefined) req = req.send(body as object);
    return req;
  };
  /** The route's path with every parameter filled with an id nobody holds. */
  const anyPath = (route: AppRoute) =>
    route.path.replace(/:[A-Za-z]+/g, (p) => (p === ':version' ? '1' : 'no-such-id'));

  it('lists the routes the Swagger document describes, and nothing else', async () => {
    const doc = (await suite.gw.http.get('/docs-json').expect(200)).body as { paths: Record<string, object> };
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path.replace(/\{(\w+)\}/g, ':$1')}`))
      .sort();
    expect(routes.map(key).sort()).toEqual(documented);
    expect(routes.length).toBeGreaterThan(60);
  });

  it('serves through Fastify no route but these and the Swagger UI (a route registered beside Nest skips its guard)', () => {
    const shape = (path: string) => path.toLowerCase().replace(/:\w+/g, ':p');
    const nest = new Set(routes.map((r) => `${r.method} ${shape(r.path)}`));
    const others = fastifyRoutesOf(suite.gw.app)
      .filter((r) => !nest.has(`${r.method} ${shape(r.path)}`))
      .map((r) => `${r.method} ${r.path}`);
    expect(others.length).toBeGreaterThan(0);
    expect(others.filter((r) => !/^get \/docs(\/.*|\*|-json|-yaml)?$/.test(r))).toEqual([]);
    expect(fastifyRoutesOf(suite.gw.app).length).toBeGreaterThan(routes.length);
  });

  it('answers 401 UNAUTHENTICATED on every route but the public ones without a key, or with a malformed, unknown or deleted key', async () => {
    const made = await suite.gw.http
      .post('/api/v1/admin/api-keys')
      .set(suite.gw.admin)
      .send({ name: 'deleted', role: 'admin', tenantId: A })
      .expect(201);
    await suite.gw.http.delete(`/api/v1/admin/api-keys/${made.body.id}`).set(suite.gw.admin).expect(200);
    const badKeys: Array<[string, { Authorization: string } | undefined]> = [
      ['none', undefined],
      ['empty bearer', { Authorization: 'Bearer ' }],
      ['basic scheme', { Authorization: `Basic ${Buffer.from('admin:x').toString('base64')}` }],
      ['two tokens', { Authorization: `Bearer ${made.body.key} extra` }],
      ['unknown', bearer('gwk_not-a-key')],
      ['deleted', bearer(made.body.key)],
    ];
    const wrong: string[] = [];
    for (const route of routes) {
      if (PUBLIC_ROUTES.has(key(route))) continue;
      for (const [kind, auth] of badKeys) {
        const res = await send(route, anyPath(route), auth);
        if (res.status !== 401 || res.body?.error?.code !== 'UNAUTHENTICATED') {
          wrong.push(`${key(route)} with key ${kind}: ${res.status}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('answers 401 to a request without a key whatever its body: the body is not read (nor inflated) for an unknown caller', async () => {
    const wrong: string[] = [];
    for (const route of routes) {
      if (PUBLIC_ROUTES.has(key(route)) || route.method === 'get') continue;
      for (const [kind, headers, body] of HOSTILE_BODIES) {
        const res = await suite.gw.http[route.method](anyPath(route)).set(headers).send(body);
        if (res.status !== 401 || res.body?.error?.code !== 'UNAUTHENTICATED') {
          wrong.push(`${key(route)} with ${kind}: ${res.status} ${res.body?.error?.code}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    // 10 MB of gzip-inflated JSON (from 10 KB sent) is neither inflated nor parsed: the answer is the 401.
    const bomb = gzipSync('[' + '0,'.repeat(5e6 - 1) + '0]');
    const res = await suite.gw.http
      .post('/api/v1/sessions')
      .set({ 'content-type': 'application/json', 'content-encoding': 'gzip' })
      .send(bomb);
    expect([bomb.length < 20_000, res.status, res.body.error.code]).toEqual([true, 401, 'UNAUTHENTICATED']);
  });

  it('serves the public routes without a key, with a body too (the early key check knows them)', async () => {
    for (const route of routes.filter((r) => PUBLIC_ROUTES.has(key(r)))) {
      const withBody = await suite.gw.http[route.method](route.path).set('content-type', 'application/json').send('{}');
      expect({ route: key(route), status: (await send(route, route.path)).status, withBody: withBody.status }).toEqual({
        route: key(route),
        status: 200,
        withBody: 200,
      });
    }
  });

  it('answers 403 FORBIDDEN to a key whose role the route is not for', async () => {
    const byRole: Record<Role, Array<{ Authorization: string }>> = {
      admin: [suite.gw.admin, keys.aAdmin],
      runtime: [keys.aRuntime],
    };
    const wrong: string[] = [];
    for (const route of routes) {
      if (PUBLIC_ROUTES.has(key(route))) continue;
      const allowed = rolesOf(route);
      for (const role of ['admin', 'runtime'] as const) {
        for (const auth of byRole[role]) {
          // With a body (non-GET) the key was looked up before the body was read; the guard decides the role either way.
          const res = await send(route, anyPath(route), auth, route.method === 'get' ? undefined : {});
          const refusedByRole = res.status === 403 && /needs a key with role/.test(res.body?.error?.message ?? '');
          if (allowed.includes(role) === refusedByRole || res.status === 401) {
            wrong.push(`${key(route)} with a ${role} key: ${res.status} ${res.body?.error?.message ?? ''}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('answers 403 to a key whose role the route is not for whatever its body: the body is not read for a caller the route refuses', async () => {
    const byRole: Record<Role, { Authorization: string }> = { admin: keys.aAdmin, runtime: keys.aRuntime };
    const wrong: string[] = [];
    let refusals = 0;
    for (const route of routes) {
      if (PUBLIC_ROUTES.has(key(route)) || route.method === 'get') continue;
      for (const role of (['admin', 'runtime'] as const).filter((r) => !rolesOf(route).includes(r))) {
        for (const [kind, headers, body] of HOSTILE_BODIES) {
          const res = await suite.gw.http[route.method](anyPath(route)).set(byRole[role]).set(headers).send(body);
          refusals++;
          if (res.status !== 403 || !/needs a key with role/.test(res.body?.error?.message ?? '')) {
            wrong.push(`${key(route)} with a ${role} key and ${kind}: ${res.status} ${res.body?.error?.code}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(refusals).toBeGreaterThan(100);
  });

  it("gives tenant B's keys nothing of tenant A on any route, and no platform-wide writes", async () => {
    const samples = samplesOf(fx);
    const markers = [A, fx.toolId, fx.agentId, fx.sessionId, fx.hitlId, fx.artifactId, fx.kbId, fx.docId, fx.skillId];
    markers.push(fx.providerId, fx.mcpId, fx.apiKeyId, 'read_a', 'risky_a', 'agent-a', 'kb-a', 'matrix-a', 'c-risky');
    const missing = routes.filter((r) => !samples[key(r)]).map(key);
    expect({ routesWithoutATenantSample: missing }).toEqual({ routesWithoutATenantSample: [] });
    const wrong: string[] = [];
    // The public routes hold no tenant's resources (/metrics names every tenant's tools by design: README).
    for (const route of routes.filter((r) => !PUBLIC_ROUTES.has(key(r)))) {
      for (const sample of samples[key(route)]) {
        for (const role of rolesOf(route)) {
          const res = await send(route, sample.path, bKeys[role], sample.body, sample.form);
          const text = typeof res.text === 'string' ? res.text : '';
          const ok = res.status >= 200 && res.status < 300;
          const what = `${route.method.toUpperCase()} ${sample.path} ${JSON.stringify(sample.body ?? '')} (B ${role})`;
          if (ok && !sample.mine) wrong.push(`${what}: ${res.status} ${text.slice(0, 200)}`);
          else if (ok && markers.some((m) => text.includes(m))) wrong.push(`${what}: shows tenant A`);
          else if (!ok && sample.status !== undefined && res.status !== sample.status) {
            wrong.push(`${what}: ${res.status} instead of ${sample.status} ${text.slice(0, 200)}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    // Tenant A's rows are all still there, unchanged.
    const agent = await suite.gw.http.get(`/api/v1/admin/agents/${fx.agentId}`).set(keys.aAdmin).expect(200);
    expect(agent.body).toMatchObject({ description: null, toolIds: expect.arrayContaining([fx.toolId]) });
    await suite.gw.http.get(`/api/v1/sessions/${fx.sessionId}`).set(keys.aRuntime).expect(200);
    const secrets = await suite.gw.http.get(`/api/v1/admin/tenants/${A}/secrets`).set(keys.aAdmin).expect(200);
    expect(JSON.stringify(secrets.body)).not.toContain('NEW_ONE');
  });
});

/** Tenant A's resources of every kind (and platform-wide ones), made with A's keys where a tenant can. */
async function tenantAFixture(gw: TestGateway): Promise<{
  fx: Fixture;
  keys: { aAdmin: { Authorization: string }; aRuntime: { Authorization: string } };
}> {
  const http = gw.http;
  const aAdmin = await createKey(gw, A, 'admin');
  const aRuntime = await createKey(gw, A, 'runtime');
  const ok = async <T = Record<string, any>>(res: PromiseLike<{ status: number; body: any }>, status = 201) => {
    const r = await res;
    if (r.status !== status) throw new Error(`fixture: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as T;
  };
  const apiKey = await ok(
    http.post('/api/v1/admin/api-keys').set(aAdmin).send({ name: 'a', role: 'runtime', tenantId: A }),
  );
  const readTool = await ok(
    http
      .post('/api/v1/admin/tools')
      .set(aAdmin)
      .send(toolBody({ name: 'read_a', tenantId: A })),
  );
  const riskyTool = await ok(
    http
      .post('/api/v1/admin/tools')
      .set(aAdmin)
      .send(toolBody({ name: 'risky_a', tenantId: A, sideEffect: 'HIGH_RISK', hitl: { approvalText: 'Approve?' } })),
  );
  const all = (await ok(http.get('/api/v1/admin/tools?pageSize=500').set(gw.admin), 200)).items as Array<{
    id: string;
    name: string;
  }>;
  const builtin = (name: string) => all.find((t) => t.name === name)!.id;
  const agent = await ok(
    http.post('/api/v1/admin/agents').set(aAdmin).send({ name: 'agent-a', tenantId: A, sideEffectPolicy: 'ALLOW' }),
  );
  await ok(
    http
      .put(`/api/v1/admin/agents/${agent.id}/tools`)
      .set(aAdmin)
      .send({ toolIds: [readTool.id, riskyTool.id, builtin('WRITE_FILE'), builtin('PUBLISH_FILE')] }),
    200,
  );
  const session = await ok(
    http
      .post('/api/v1/sessions')
      .set(aRuntime)
      .send({ agentId: agent.id, userId: 'u1', permissions: [], capabilities: ['FILE_ROOM'] }),
  );
  const act = (iteration: number, id: string, name: string, args: object) =>
    ok(
      http
        .post(`/api/v1/sessions/${session.id}/act`)
        .set(aRuntime)
        .send({ iteration, toolCalls: [{ id, name, arguments: args }] }),
      200,
    );
  await act(1, 'c-read', 'read_a', { q: 'x' });
  await act(2, 'c-write', 'WRITE_FILE', { path: 'a.txt', content: 'tenant A' });
  const published = await act(3, 'c-publish', 'PUBLISH_FILE', { path: 'a.txt' });
  const artifactId = JSON.parse(published.results[0].content).artifactId as string;
  const interrupted = await act(4, 'c-risky', 'risky_a', { q: 'x' });
  if (interrupted.status !== 'INTERRUPTED') throw new Error(`fixture: ${JSON.stringify(interrupted)}`);
  const hitl = (await ok(http.get('/api/v1/admin/hitl?status=PENDING').set(aAdmin), 200)).items as Array<{
    id: string;
    sessionId: string;
  }>;
  const kb = await ok(
    http.post('/api/v1/admin/knowledge-bases').set(aAdmin).send({ name: 'kb-a', tenantId: A, kind: 'INTERNAL' }),
  );
  const doc = await ok(
    http
      .post(`/api/v1/admin/knowledge-bases/${kb.id}/documents`)
      .set(aAdmin)
      .send({ title: 'Handbook', content: 'The handbook of tenant A.', mimeType: 'text/plain' }),
  );
  const skill = await uploadJsonSkill(gw, aAdmin, {
    tenantId: A,
    skillContent: skillMd('matrix-a', 'Tenant A skill.'),
  });
  const official = await uploadJsonSkill(gw, gw.admin, { skillContent: skillMd('matrix-official', 'Official skill.') });
  await ok(http.put(`/api/v1/admin/tenants/${A}/secrets/MODEL_KEY`).set(aAdmin).send({ value: 'sk-tenant-a' }), 201);
  const provider = await ok(
    http
      .post('/api/v1/admin/model-providers')
      .set(aAdmin)
      .send(providerBody({ tenantId: A })),
  );
  const platformProvider = await ok(http.post('/api/v1/admin/model-providers').set(gw.admin).send(providerBody()));
  const mcp = await ok(
    http
      .post('/api/v1/admin/mcp-services')
      .set(aAdmin)
      .send(mcpBody({ tenantId: A })),
  );
  const platformMcp = await ok(http.post('/api/v1/admin/mcp-services').set(gw.admin).send(mcpBody()));
  const platformTool = await ok(http.post('/api/v1/admin/tools').set(gw.admin).send(toolBody()));
  return {
    keys: { aAdmin, aRuntime },
    fx: {
      toolId: readTool.id,
      agentId: agent.id,
      sessionId: session.id,
      toolCallId: 'c-read',
      hitlId: hitl.find((h) => h.sessionId === session.id)!.id,
      artifactId,
      kbId: kb.id,
      docId: doc.id,
      skillId: skill.id,
      providerId: provider.id,
      mcpId: mcp.id,
      apiKeyId: apiKey.id,
      secretName: 'MODEL_KEY',
      bAgentId: '',
      bToolId: '',
      bProviderId: '',
      bMcpId: '',
      platformToolId: platformTool.id,
      platformSkillId: official.id,
      platformProviderId: platformProvider.id,
      platformMcpId: platformMcp.id,
    },
  };
}
