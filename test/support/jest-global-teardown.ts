// globalThis.__gatewayTestMariaDb is declared in jest-global-setup.ts.

/** Stops the throwaway MariaDB that jest-global-setup.ts started, if it started one. */
export default async function jestGlobalTeardown(): Promise<void> {
  const server = globalThis.__gatewayTestMariaDb;
  if (!server) return;
  globalThis.__gatewayTestMariaDb = undefined;
  // Watch mode runs setup again: it must start a new server, not reuse this URL.
  delete process.env.TEST_MYSQL_URL;
  await server.stop();
}
