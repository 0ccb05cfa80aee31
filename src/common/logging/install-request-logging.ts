import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { HttpLogger } from 'pino-http';
import { storage, Store } from 'nestjs-pino/storage';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Gives every request its id and logger before anything else sees it (the direct routes as well as Express):
 * pino-http sets `req.log` and the completion line, and the request's log context is opened around the rest.
 * Express re-opens the same context after reading the body (nestjs-pino's middleware with `useExisting`).
 */
export function installRequestLogging(server: Server, httpLogger: HttpLogger): void {
  const listeners = server.listeners('request') as RequestListener[];
  if (listeners.length !== 1) throw new Error(`expected one request listener on the HTTP server, found ${listeners.length}`);
  const [next] = listeners;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    httpLogger(req, res);
    storage.run(new Store(req.log, res.log), () => next(req, res));
  });
}
