import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  ThrottlerModuleOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '@app/common/auth/auth-context';
import { PUBLIC_KEY } from '@app/common/auth/auth.decorators';
import { RateLimitBlocks, rateLimited, rateLimitTrackerOf } from './rate-limit-blocks';

type AuthenticatedRequest = FastifyRequest & { auth?: AuthContext | null };

/**
 * RATE_LIMIT_PER_MINUTE per API key, over every route together (the throttler's own key is per route): a runtime
 * whose agent loops on `act` is stopped at its limit without slowing other keys. Runs after the key guard, which has
 * put the key on the request; a request without a valid key never gets here (401 first). The public routes
 * (/health, /metrics) are never limited: probes and scrapers must get through. A refusal is kept in
 * {@link RateLimitBlocks} while it lasts, so the key's next requests with a body are refused before their
 * body is read.
 */
@Injectable()
export class ApiKeyRateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    private readonly blocks: RateLimitBlocks,
  ) {
    super(options, storage, reflector);
  }

  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    return this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, [context.getHandler(), context.getClass()]) === true;
  }

  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    const auth = (req as unknown as AuthenticatedRequest).auth;
    return auth ? rateLimitTrackerOf(auth) : `ip:${(req as unknown as FastifyRequest).ip}`;
  }

  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    this.blocks.block(detail.tracker, detail.timeToBlockExpire);
    throw rateLimited(detail.timeToBlockExpire, detail.limit);
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, throttlerName: string): string {
    return `${throttlerName}:${tracker}`;
  }
}
