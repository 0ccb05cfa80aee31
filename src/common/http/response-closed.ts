import type { ServerResponse } from 'node:http';

/**
 * Runs `then` once the answer is over: sent whole, cut by an error, or its connection closed by the client (at once
 * when that already happened). `res.writableFinished` then tells a whole answer from a cut one.
 */
export function whenResponseCloses(res: ServerResponse, then: () => void): void {
  if (res.destroyed || res.socket?.destroyed) then();
  else res.once('close', then);
}
