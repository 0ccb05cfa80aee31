/**
 * bench/tool-specs: the visibility pipeline over a large registry (issue 2, item 9).
 * Seeds 10,000 tools in one tenant's scope, binds 1,000 of them to one agent, gives the user 100 permission
 * tags, and prints p50/p99 of the pipeline alone (ToolVisibilityService in process) and of
 * POST /api/v1/agents/{id}/tool-specs over HTTP (keep-alive), on SQLite and on MariaDB.
 * Run: npm run bench:tool-specs   (env: ROUNDS, SKIP_MYSQL=1, TEST_MYSQL_URL to use an existing server)
 */
import 'reflect-metadata';
import { cpus } from 'node:os';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { DataSource } from 'typeorm';
import type { INestApplication } from '@nestjs/common';
import { loadGatewayConfig } from '@app/config/gateway-config';
import { createGatewayApp } from '@app/bootstrap/create-gateway-app';
import { ToolVisibilityService } from '@app/modules/agent-config/visibility/tool-visibility.service';
import { VisibilitySnapshotService } from '@app/modules/agent-config/visibility/visibility-snapshot.service';
import { startMariaDbServer } from '@test/support/mariadb-server';
import { formatSummary, summarize, timeSequential } from './support/latency';

const TOOLS = 10_000;
const BOUND = 1_000;
const TAGS = 100;
const ROUNDS = Number(process.env.ROUNDS ?? 300);
const ADMIN = 'bench-admin-key-0123456789';
const TENANT = 'bench';

async function seed(ds: DataSource): Promise<{ agentId: string; boundIds: string[] }> {
  const now = Date.now();
  const rows: unknown[][] = [];
  const boundIds: string[] = [];
  for (let i = 0; i < TOOLS; i++) {
    const id = randomUUID();
    if (i % (TOOLS / BOUND) === 0) boundIds.push(id);
    const parameters = {
      type: 'object',
      properties: {
        id: { type: 'string', description: `Identifier of item ${i}` },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        mode: { type: 'string', enum: ['fast', 'full'] },
        filters: {
          type: 'object',
          properties: { from: { type: 'string', format: 'date-time' }, to: { type: 'string' } },
          additionalProperties: false,
        },
      },
      required: ['id'],
      additionalProperties: false,
    };
    const tags = [`tag_${i % TAGS}`, `tag_${(i * 7) % TAGS}`];
    rows.push([
      id,
      TENANT,
      TENANT,
      `tool_${i}`,
      `tool_${i}`,
      `Tool number ${i}: does a realistic amount of describing.`,
      JSON.stringify(parameters),
      'HTTP',
      `https://svc.example.com/t/${i}`,
      'POST',
      JSON.stringify(tags),
      '[]',
      i % 3 === 0 ? 'SIDE_EFFECT' : 'READ_ONLY',
      '[]',
      1,
      'ACTIVE',
      'DB',
      1,
      now,
      now,
    ]);
  }
  const cols =
    'id, tenant_id, scope_key, name, name_key, description, parameters, service_type, endpoint, http_method, permission_tags, tags, side_effect, requires, enabled, status, source, version, created_at, updated_at';
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    await ds.query(
      `INSERT INTO ai_tool (${cols}) VALUES ${chunk.map((r) => `(${r.map(() => '?').join(', ')})`).join(', ')}`,
      chunk.flat(),
    );
  }
  const agentId = randomUUID();
  await ds.query(
    'INSERT INTO agent (id, tenant_id, name, name_key, description, web_search_mode, side_effect_policy, max_iterations, skill_ids, created_at, updated_at) VALUES (?, ?, ?, ?, NULL, ?, ?, 20, ?, ?, ?)',
    [agentId, TENANT, 'bench-agent', 'bench-agent', 'AUTO', 'ALLOW', '[]', now, now],
  );
  for (let i = 0; i < boundIds.length; i += 500) {
    const chunk = boundIds.slice(i, i + 500);
    await ds.query(
      `INSERT INTO agent_tool_binding (agent_id, tool_id, created_at) VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')}`,
      chunk.flatMap((id, j) => [agentId, id, now + i + j]),
    );
  }
  await ds.query('UPDATE config_version SET version = version + 1 WHERE id = 1');
  return { agentId, boundIds };
}

async function runDialect(label: string, databaseUrl: string): Promise<void> {
  const config = loadGatewayConfig({
    NODE_ENV: 'test',
    ADMIN_API_KEY: ADMIN,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'error',
    DEMO_TOOLS_ENABLED: 'false',
    MCP_REPAIR_ENABLED: 'false',
    PORT: '0',
  });
  const app: INestApplication = await createGatewayApp(config, { logger: false });
  await app.listen(0, '127.0.0.1');
  const base = await app.getUrl();
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 4 });
  try {
    const t0 = performance.now();
    const { agentId } = await seed(app.get(DataSource));
    const seedMs = performance.now() - t0;
    const keyRes = await request(`${base}/api/v1/admin/api-keys`, {
      method: 'POST',
      dispatcher,
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', role: 'runtime', tenantId: TENANT }),
    });
    const runtimeKey = ((await keyRes.body.json()) as { key: string }).key;
    const permissions = Array.from({ length: TAGS }, (_, i) => `tag_${i}`);
    const visibility = app.get(ToolVisibilityService);
    const snapshots = app.get(VisibilitySnapshotService);
    const req = { tenantId: TENANT, agentId, permissions };

    snapshots.invalidate();
    const cold = performance.now();
    const first = await visibility.toolSpecs(req, 'openai');
    const coldMs = performance.now() - cold;

    const pipeline = summarize(await timeSequential(ROUNDS, 50, () => visibility.toolSpecs(req, 'openai')));
    const gemini = summarize(await timeSequential(ROUNDS, 50, () => visibility.toolSpecs(req, 'gemini')));
    const explain = summarize(
      await timeSequential(Math.max(20, ROUNDS / 5), 5, () => visibility.toolSpecs(req, 'openai', true)),
    );
    const body = JSON.stringify({ userId: 'u', permissions });
    let bytes = 0;
    const http = summarize(
      await timeSequential(ROUNDS, 50, async () => {
        const res = await request(`${base}/api/v1/agents/${agentId}/tool-specs`, {
          method: 'POST',
          dispatcher,
          headers: { authorization: `Bearer ${runtimeKey}`, 'content-type': 'application/json' },
          body,
        });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
        bytes = text.length;
      }),
    );
    console.log(
      `\n[${label}] seeded ${TOOLS} tools + ${BOUND} bindings in ${seedMs.toFixed(0)} ms; visible tools per request: ${first.tools.length}; response ${(bytes / 1024).toFixed(0)} KB`,
    );
    console.log(`  cold load of the tenant snapshot (first request after a config change): ${coldMs.toFixed(1)} ms`);
    console.log('  ' + formatSummary('pipeline alone (openai)', pipeline));
    console.log('  ' + formatSummary('pipeline alone (gemini)', gemini));
    console.log('  ' + formatSummary('pipeline alone (openai, explain)', explain));
    console.log('  ' + formatSummary('POST tool-specs over HTTP', http));
    console.log(
      `  goals: pipeline p50 <= 5 ms: ${pipeline.p50 <= 5 ? 'met' : 'MISSED'}; HTTP p50 <= 10 ms: ${http.p50 <= 10 ? 'met' : 'MISSED'}`,
    );
  } finally {
    await dispatcher.close();
    await app.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `bench/tool-specs — node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ${ROUNDS} timed rounds per figure after warm-up`,
  );
  console.log(
    `setup: ${TOOLS} tools in the tenant's scope, ${BOUND} bound to the agent, user holds ${TAGS} permission tags; each tool needs 1-2 of them; TOOL_SPECS_CACHE_CHECK_MS=0 (one version read per request)`,
  );
  const file = join(tmpdir(), `gw-bench-${randomUUID()}.sqlite`);
  try {
    await runDialect('sqlite', `sqlite:${file}`);
  } finally {
    await Promise.all(['', '-wal', '-shm'].map((e) => rm(file + e, { force: true })));
  }
  if (process.env.SKIP_MYSQL) return;
  const external = process.env.TEST_MYSQL_URL;
  const server = external
    ? null
    : await startMariaDbServer().catch((err) => (console.log(`\n[mariadb] skipped: ${(err as Error).message}`), null));
  const serverUrl = external ?? server?.url;
  if (!serverUrl) return;
  try {
    const mysql = await import('mysql2/promise');
    const name = `gw_bench_${Date.now()}`;
    const conn = await mysql.createConnection(serverUrl);
    await conn.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await runDialect('mariadb', serverUrl.replace(/\/?$/, `/${name}`).replace(/\/\/([^/]+)\/\/?/, '//$1/'));
    await conn.query(`DROP DATABASE ${name}`);
    await conn.end();
  } finally {
    await server?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
