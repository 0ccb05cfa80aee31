/**
 * MCP sync benchmark: 50 Nacos services x 20 tools behind the Nacos v1 test server (driven by the real
 * `nacos` client), served by in-process SDK MCP servers; the whole gateway in-process on SQLite, or on a
 * throwaway MariaDB with BENCH_DATABASE=mariadb (or the server of TEST_MYSQL_URL when set).
 * Measures: registering the services (each synced at once), a full sync of all of them (every tool changed,
 * and nothing changed), one scheduled repair round, and the time from a Nacos instance change to the
 * registry holding the new tool list. Goals: full sync < 5 s; change applied < MCP_SYNC_DEBOUNCE_MS + 1 s.
 * Run: node -r @swc-node/register bench/sync.bench.ts   (BENCH_DATABASE=mariadb for MariaDB)
 */
import os from 'node:os';
import { DataSource } from 'typeorm';
import { createTestDatabaseUrl } from '@test/support/test-database';
import { startMariaDbServer, type MariaDbServer } from '@test/support/mariadb-server';
import { startMcpSyncGateway } from '@test/mcp-services/support/mcp-sync-gateway';
import { McpServiceRepairService } from '@app/modules/mcp-services/mcp-service-repair.service';
import { GROUP, NAMESPACE, SyncFleet } from './support/sync-fleet';
import { timed, waitUntil, summary } from './support/sync-timing';

const SERVICES = 50;
const TOOLS = 20;
const SERVERS = 5;
const DEBOUNCE_MS = 2000;
const CHANGE_SAMPLES = 5;

async function main(): Promise<void> {
  const fleet = new SyncFleet({ services: SERVICES, toolsPerService: TOOLS, servers: SERVERS });
  await fleet.start();
  let mariadb: MariaDbServer | undefined;
  if (process.env.BENCH_DATABASE === 'mariadb' && !process.env.TEST_MYSQL_URL) {
    mariadb = await startMariaDbServer();
    process.env.TEST_MYSQL_URL = mariadb.url;
  }
  const db = await createTestDatabaseUrl(process.env.TEST_MYSQL_URL ? 'mysql' : 'sqlite');
  const gw = await startMcpSyncGateway(db.url, {
    NACOS_SERVER_ADDR: fleet.addr,
    MCP_SYNC_DEBOUNCE_MS: String(DEBOUNCE_MS),
  });
  const dataSource = gw.app.get(DataSource);
  const ids: string[] = [];
  try {
    console.log('MCP sync benchmark');
    console.log(
      `  node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), database ${dataSource.options.type}`,
    );
    console.log(
      `  ${SERVICES} Nacos services x ${TOOLS} tools, one instance each, on ${SERVERS} SDK MCP servers (one URL and session per service)`,
    );
    console.log(
      `  Nacos v1 test server with stock timings (push delay 500 ms); MCP_SYNC_DEBOUNCE_MS=${DEBOUNCE_MS}; scheduled repair off (run by hand below)`,
    );
    console.log('');

    const register = await timed(async () => {
      for (let i = 0; i < SERVICES; i++) {
        const res = await gw.http
          .post('/api/v1/admin/mcp-services')
          .set(gw.admin)
          .send({
            name: fleet.serviceName(i),
            kind: 'NACOS',
            serviceName: fleet.serviceName(i),
            groupName: GROUP,
            namespaceId: NAMESPACE,
          })
          .expect(201);
        if (res.body.lastSync.added !== TOOLS) throw new Error(`service ${i} added ${res.body.lastSync.added} tools`);
        ids.push(res.body.id);
      }
    });
    const rows = await countMcpTools(dataSource);
    console.log(
      `register ${SERVICES} services one by one (each synced before 201):   ${register.toFixed(0)} ms  (${rows} tools in the registry)`,
    );

    const syncAll = async (): Promise<number> =>
      timed(async () => {
        await Promise.all(
          ids.map((id) => gw.http.post(`/api/v1/admin/mcp-services/${id}/sync`).set(gw.admin).expect(200)),
        );
      });
    await fleet.reviseAll(2);
    const changed = await syncAll();
    const versions = (
      await dataSource.query("SELECT MIN(version) AS lo, MAX(version) AS hi FROM ai_tool WHERE source = 'MCP'")
    )[0];
    console.log(
      `full sync of all ${SERVICES} services, every tool changed (${SERVICES * TOOLS} updates): ${changed.toFixed(0)} ms  (versions now ${versions.lo}..${versions.hi})   goal < 5000 ms`,
    );
    const unchanged = await syncAll();
    console.log(
      `full sync of all ${SERVICES} services, nothing changed:             ${unchanged.toFixed(0)} ms   goal < 5000 ms`,
    );
    const repair = gw.app.get(McpServiceRepairService);
    const round = await timed(() => repair.repairAll());
    console.log(`one scheduled repair round (health + tools/list hash of all):    ${round.toFixed(0)} ms`);

    const latencies: number[] = [];
    for (let k = 0; k < CHANGE_SAMPLES; k++) {
      const i = k * Math.floor(SERVICES / CHANGE_SAMPLES);
      const started = performance.now();
      fleet.redeploy(i);
      await waitUntil(
        async () =>
          (
            await dataSource.query('SELECT COUNT(*) AS n FROM ai_tool WHERE name = ?', [
              `${fleet.serviceName(i)}_extra`,
            ])
          )[0].n > 0,
        10_000,
      );
      latencies.push(performance.now() - started);
    }
    console.log(
      `instance change -> new tool in the registry (${CHANGE_SAMPLES} redeploys): ${summary(latencies)}   goal < ${DEBOUNCE_MS + 1000} ms` +
        ` (= Nacos push delay 500 + debounce ${DEBOUNCE_MS} + sync)`,
    );
    const over =
      latencies.filter((l) => l >= DEBOUNCE_MS + 1000).length + (changed >= 5000 ? 1 : 0) + (unchanged >= 5000 ? 1 : 0);
    console.log('');
    console.log(over === 0 ? 'all goals met' : `${over} figure(s) over their goal`);
  } finally {
    await gw.close();
    await fleet.stop();
    await db.drop();
    await mariadb?.stop();
  }
}

async function countMcpTools(dataSource: DataSource): Promise<number> {
  return Number((await dataSource.query("SELECT COUNT(*) AS n FROM ai_tool WHERE source = 'MCP'"))[0].n);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
