import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { DomainError } from '../errors/domain-error';
import { CommonErrorCode } from '../errors/common.errors';
import { API_KEY_RESOLVER, ApiKeyResolver, ApiRole, AuthContext } from './auth-context';
import { PUBLIC_KEY, ROLES_KEY } from './auth.decorators';

/** Global guard: `Authorization: Bearer <key>`; no or unknown key → 401; wrong role → 403. */
@Injectable()
export class ApiKeyAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(API_KEY_RESOLVER) private readonly resolver: ApiKeyResolver,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const targets = [ctx.getHandler(), ctx.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const req = ctx.switchToHttp().getRequest<Request & { auth?: AuthContext }>();
    const key = bearerKey(req.headers.authorization);
    if (!key) {
      throw new DomainError(CommonErrorCode.UNAUTHENTICATED, 'Missing API key: send the header "Authorization: Bearer <key>".');
    }
    const auth = await this.resolver.resolve(key);
    if (!auth) {
      throw new DomainError(CommonErrorCode.UNAUTHENTICATED, 'Unknown or revoked API key: check the key, or ask an admin for a new one.');
    }
    const roles = this.reflector.getAllAndOverride<ApiRole[] | undefined>(ROLES_KEY, targets);
    if (!roles || !roles.includes(auth.role)) {
      throw new DomainError(
        CommonErrorCode.FORBIDDEN,
        `This endpoint needs a key with role ${roles?.join(' or ') ?? '(none)'}; yours has role ${auth.role}.`,
      );
    }
    req.auth = auth;
    return true;
  }
}

function bearerKey(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
