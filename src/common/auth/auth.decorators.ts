import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import type { ApiRole, AuthContext } from './auth-context';

export const ROLES_KEY = 'gateway:roles';
export const PUBLIC_KEY = 'gateway:public';

/**
 * The roles that may call a controller or handler. Every non-public route must name them. Nest's guard reads them
 * from Nest's metadata; they are also written into each handler's Fastify route config (`routeRoles`), where the
 * early key check reads them before the body is (see early-authentication.hook.ts). A handler's own roles win over
 * its controller's, as in the guard.
 */
export const Roles =
  (...roles: ApiRole[]) =>
  (target: object, propertyKey?: string | symbol, descriptor?: PropertyDescriptor): void => {
    SetMetadata(ROLES_KEY, roles)(target, propertyKey as string | symbol, descriptor as PropertyDescriptor);
    if (descriptor) {
      setRouteRoles(descriptor.value as object, roles, true);
      return;
    }
    const prototype = (target as { prototype: object }).prototype;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
      if (name !== 'constructor' && typeof handler === 'function') setRouteRoles(handler, roles, false);
    }
  };

/** The roles of a handler in its Fastify route config (merged with what the config already holds). */
function setRouteRoles(handler: object, roles: readonly ApiRole[], own: boolean): void {
  const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) ?? {}) as RouteAccess;
  if (!own && config.routeRoles) return; // the handler's own @Roles (applied first) wins
  Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, routeRoles: roles }, handler);
}

/** What a route's Fastify config says about its callers, for the checks that run before Nest's guard. */
export interface RouteAccess {
  publicRoute?: boolean;
  routeRoles?: readonly ApiRole[];
}

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
