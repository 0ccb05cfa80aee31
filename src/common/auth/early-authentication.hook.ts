import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKeyResolver, AuthContext } from './auth-context';
import { PUBLIC_ROUTE } from './auth.decorators';
import { authenticate } from './authorize';

/**
 * A request with a body to a route that needs a key is answered 401 before its body is read: Fastify parses (and
 * inflates) bodies before Nest's guard runs, so without this a caller with no key or an unknown one got the body's
 * 400/413/415 instead of the contract's 401, and made the gateway inflate and parse up to 10 MB for nothing. The
 * guard still decides the roles (with the context found here: the key is looked up once); this only refuses earlier
 * what it would refuse. Requests without a body, public routes and paths that match no route are left to the guard
 * and the router.
 */
export function registerEarlyAuthentication(fastify: FastifyInstance, resolver: ApiKeyResolver): void {
  fastify.addHook('onRequest', async (request) => {
    if (!hasBody(request) || request.is404) return;
    const config = request.routeOptions.config as { publicRoute?: boolean } | undefined;
    if (config?.publicRoute === PUBLIC_ROUTE.publicRoute) return;
    (request as FastifyRequest & { auth: AuthContext | null }).auth = await authenticate(
      resolver,
      request.headers.authorization,
    );
  });
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
