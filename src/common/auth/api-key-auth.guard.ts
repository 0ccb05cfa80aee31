import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { API_KEY_RESOLVER, ApiKeyResolver, ApiRole, AuthContext } from './auth-context';
import { PUBLIC_KEY, ROLES_KEY } from './auth.decorators';
import { authorize } from './authorize';

/** Global guard: applies {@link authorize} with the roles the handler or its controller names. */
@Injectable()
export class ApiKeyAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(API_KEY_RESOLVER) private readonly resolver: ApiKeyResolver,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const req = ctx.switchToHttp().getRequest<FastifyRequest & { auth?: AuthContext | null }>();
    const roles = this.reflector.getAllAndOverride<ApiRole[] | undefined>(ROLES_KEY, targets);
    // A request with a body was authenticated before its body was read (early-authentication.hook).
    req.auth = await authorize(this.resolver, req.headers.authorization, roles, req.auth ?? undefined);
    return true;
  }
}
