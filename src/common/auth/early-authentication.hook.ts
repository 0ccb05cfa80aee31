import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ApiKeyResolver, AuthContext, AuthFailureLimit } from './auth-context';
import { PUBLIC_ROUTE, RouteAccess } from './auth.decorators';
import { authenticateRequest, authorize } from './authorize';
import { hasRequestBody } from '../http/request-body';
import { requestLogFields } from '../logging/log-context';

/**
 * A request with a body to a route that needs a key is answered 401 (no or unknown key), 403 (a role the route is
 * not for) or 429 (its address is refused for failed authentications) before its body is read: Fastify parses (and
 * inflates) bodies before Nest's guard runs, so without this such a caller got the body's 400/413/415 instead of
 * the contract's 401/403, and made the gateway inflate and parse up to 10 MB for nothing. The roles come from the
 * route's Fastify config, where `@Roles` writes them beside Nest's metadata. The guard still runs and decides again
 * (with the context found here: the key is looked up, and a failure counted, once); this only refuses earlier what
 * it would refuse. Requests without a body, public routes and paths that match no route are left to the guard and
 * the router.
 */
export function registerEarlyAuthentication(
  fastify: FastifyInstance,
  resolver: ApiKeyResolver,
  failures: AuthFailureLimit,
): void {
  fastify.addHook('onRequest', async (request, reply) => {
    if (!hasRequestBody(request) || request.is404) return;
    const config = request.routeOptions.config as RouteAccess | undefined;
    if (config?.publicRoute === PUBLIC_ROUTE.publicRoute) return;
    const auth = await authenticateRequest(resolver, failures, request, reply);
    // A route outside Nest's (Swagger UI) has no roles: the key only.
    (request as FastifyRequest & { auth: AuthContext | null }).auth = config?.routeRoles
      ? await authorize(resolver, request.headers.authorization, config.routeRoles, auth, requestLogFields(request))
      : auth;
  });
}
