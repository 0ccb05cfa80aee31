import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { ApiRole, AuthContext } from './auth-context';

export const ROLES_KEY = 'gateway:roles';
export const PUBLIC_KEY = 'gateway:public';

/** The roles that may call a controller or handler. Every non-public route must name them. */
export const Roles = (...roles: ApiRole[]) => SetMetadata(ROLES_KEY, roles);

/** A route that needs no key (health). */
export const Public = () => SetMetadata(PUBLIC_KEY, true);

/** Reads the caller's {@link AuthContext} off the request. */
function authOfRequest(_data: unknown, ctx: ExecutionContext): AuthContext {
  return ctx.switchToHttp().getRequest<{ auth: AuthContext }>().auth;
}

/** The caller's {@link AuthContext}, set by the guard. */
export const Auth = createParamDecorator(authOfRequest);
