import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import type { ApiRole, AuthContext } from './auth-context';

export const ROLES_KEY = 'gateway:roles';
export const PUBLIC_KEY = 'gateway:public';

/** The roles that may call a controller or handler. Every non-public route must name them. */
export const Roles = (...roles: ApiRole[]) => SetMetadata(ROLES_KEY, roles);

/** Fastify route config of a {@link Public} route: read before the body is, where Nest's metadata is not at hand. */
export const PUBLIC_ROUTE = { publicRoute: true } as const;

/** A route that needs no key (health). On a handler, so that Fastify's route config says so too. */
export const Public = () => applyDecorators(SetMetadata(PUBLIC_KEY, true), RouteConfig(PUBLIC_ROUTE));

/** Reads the caller's {@link AuthContext} off the request. */
function authOfRequest(_data: unknown, ctx: ExecutionContext): AuthContext {
  return ctx.switchToHttp().getRequest<{ auth: AuthContext }>().auth;
}

/** The caller's {@link AuthContext}, set by the guard. */
export const Auth = createParamDecorator(authOfRequest);
