import type { GatewayExit, GatewayProcess } from '@test/support/gateway-process';

/**
 * Sends `request` to a gateway armed to kill itself while serving it, and waits for the process to end: whether the
 * request broke (the process died under it) and how the process exited. A fault that did not fire leaves the request
 * answered: the process is killed then, so the suite's first test fails on `requestBroke`, not the whole suite by a
 * timeout.
 */
export async function untilArmedGatewayDied(
  armed: GatewayProcess,
  request: () => Promise<unknown>,
): Promise<{ requestBroke: boolean; exit: GatewayExit }> {
  const requestBroke = await request().then(
    () => false,
    () => true,
  );
  if (!requestBroke) await armed.kill();
  return { requestBroke, exit: await armed.exited };
}
