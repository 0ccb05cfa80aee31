import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { DirectRouter } from './direct-router';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Puts the direct router in front of the server's request listener (Express): a request it takes never
 * reaches Express; every other request goes on unchanged.
 */
export function installDirectRoutes(server: Server, router: DirectRouter): void {
  const listeners = server.listeners('request') as RequestListener[];
  if (listeners.length !== 1) throw new Error(`expected one request listener (Express) on the HTTP server, found ${listeners.length}`);
  const [next] = listeners;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!router.handle(req, res)) next(req, res);
  });
}
