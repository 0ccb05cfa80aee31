import { findMariaDbBinaries } from './mariadb-binaries';
import { MARIADB_TEST_SPEED_ARGS, MariaDbServer, startMariaDbServer } from './mariadb-server';

declare global {
  /** The server this Jest run started; read by jest-global-teardown.ts (same process). */
  var __gatewayTestMariaDb: MariaDbServer | undefined;
}

const isCi = (): boolean => ['true', '1'].includes((process.env.CI ?? '').toLowerCase());

/**
 * Gives the MySQL dialect suites a server through TEST_MYSQL_URL before the workers fork (they inherit
 * the environment): an URL already set is used as is (CI exports one); else a throwaway MariaDB is
 * started when installed; else CI fails and a developer's run warns that those suites are reported as todo.
 */
export default async function jestGlobalSetup(): Promise<void> {
  if (process.env.TEST_MYSQL_URL) return;
  if (findMariaDbBinaries()) {
    const startedAt = Date.now();
    const server = await startMariaDbServer({ extraServerArgs: MARIADB_TEST_SPEED_ARGS });
    globalThis.__gatewayTestMariaDb = server;
    process.env.TEST_MYSQL_URL = server.url;
    console.log(`\n[test] throwaway MariaDB on 127.0.0.1:${server.port} (${Date.now() - startedAt} ms)`);
    return;
  }
  if (isCi()) {
    throw new Error(
      'CI must run the MySQL dialect suites: export TEST_MYSQL_URL or install mariadb-server and mariadb-client.',
    );
  }
  console.warn(
    '\n[test] WARNING: MariaDB is not installed, so the MySQL dialect suites do not run (each shows as a todo).\n' +
      '       To run them: apt-get install -y --no-install-recommends mariadb-server mariadb-client\n' +
      '       or export TEST_MYSQL_URL=mysql://user:password@host:port/ for a server where that user may CREATE DATABASE.',
  );
}
