import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from '@app/common/auth/auth-context';
import { RateLimitBlocks, rateLimited, rateLimitTrackerOf } from './rate-limit-blocks';

/**
 * A key the rate-limit guard refused gets 429 for its requests with a body while its block lasts, before the body is
 * read: without this the gateway read, inflated and parsed up to 10 MB per refused request. It counts nothing and
 * decides nothing of its own: it repeats the guard's last refusal while it lasts (the guard would refuse the request
 * too). Registered after the early authentication, which puts the key of a request with a body on it; requests
 * without a body, and public routes, are left to the guard.
 */
export function registerEarlyRateLimit(fastify: FastifyInstance, blocks: RateLimitBlocks): void {
  fastify.addHook('onRequest', async (request, reply) => {
    const auth = (request as FastifyRequest & { auth: AuthContext | null }).auth;
    if (!auth) return;
    const seconds = blocks.secondsLeft(rateLimitTrackerOf(auth));
    if (seconds === 0) return;
    void reply.header('Retry-After', seconds);
    throw rateLimited(seconds);
  });
}
