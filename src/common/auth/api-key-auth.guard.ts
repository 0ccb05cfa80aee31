import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  API_KEY_RESOLVER,
  ApiKeyResolver,
  ApiRole,
  AUTH_FAILURE_LIMIT,
  AuthContext,
  AuthFailureLimit,
} from './auth-context';
import { PUBLIC_KEY, ROLES_KEY } from './auth.decorators';
import { authenticateRequest, authorize } from './authorize';
import { requestLogFields } from '../logging/log-context';

/** Global guard: applies {@link authorize} with the roles the handler or its controller names. */
@Injectable()
export class ApiKeyAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(API_KEY_RESOLVER) private readonly resolver: ApiKeyResolver,
    @Inject(AUTH_FAILURE_LIMIT) private readonly failures: AuthFailureLimit,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const http = ctx.switchToHttp();
    const req = http.getRequest<FastifyRequest & { auth?: AuthContext | null }>();
    const roles = this.reflector.getAllAndOverride<ApiRole[] | undefined>(ROLES_KEY, targets);
    // A request with a body was authenticated (and a failure counted) before its body was read
    // (early-authentication.hook): not again.
    const auth =
      req.auth ?? (await authenticateRequest(this.resolver, this.failures, req, http.getResponse<FastifyReply>()));
    req.auth = await authorize(this.resolver, req.headers.authorization, roles, auth, requestLogFields(req));
    return true;
  }
}
