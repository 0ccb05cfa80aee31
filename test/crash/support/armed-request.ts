import type { GatewayExit, GatewayProcess } from '@test/support/gateway-process';
import { waitFor } from '@test/support/wait-for';

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

/**
 * Sends `request` to a gateway armed to kill itself at a point that may come after its answer (an event written
 * behind the call), and waits for the process to end by itself: its exit, or null when it had not died within
 * `timeoutMs` (it is killed then, so the suite fails on the exit, not by a timeout).
 */
export async function untilArmedGatewayKilledItself(
  armed: GatewayProcess,
  request: () => Promise<unknown>,
  timeoutMs = 30_000,
): Promise<GatewayExit | null> {
  await request().catch(() => undefined);
  return waitFor(() => armed.hasExited, { timeoutMs, description: 'the armed gateway to kill itself' }).then(
    () => armed.exited,
    async () => {
      await armed.kill();
      return null;
    },
  );
}
