// globalThis.__gatewayTestMariaDb is declared in jest-global-setup.ts.

import { dropMysqlDatabase } from './mysql-template';

/** Drops the migrated template and stops the throwaway MariaDB that jest-global-setup.ts started, if any. */
export default async function jestGlobalTeardown(): Promise<void> {
  const template = process.env.TEST_MYSQL_TEMPLATE;
  delete process.env.TEST_MYSQL_TEMPLATE;
  if (template && process.env.TEST_MYSQL_URL) await dropMysqlDatabase(process.env.TEST_MYSQL_URL, template);
  const server = globalThis.__gatewayTestMariaDb;
  if (!server) return;
  globalThis.__gatewayTestMariaDb = undefined;
  // Watch mode runs setup again: it must start a new server, not reuse this URL.
  delete process.env.TEST_MYSQL_URL;
  await server.stop();
}
