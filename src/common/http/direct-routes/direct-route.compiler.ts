import type { IncomingMessage, ServerResponse } from 'node:http';
import { PipeTransform, RequestMethod } from '@nestjs/common';
import {
  EXCEPTION_FILTERS_METADATA,
  GUARDS_METADATA,
  HTTP_CODE_METADATA,
  INTERCEPTORS_METADATA,
  METHOD_METADATA,
  PATH_METADATA,
  ROUTE_ARGS_METADATA,
} from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { ApiRole, AuthContext } from '../../auth/auth-context';
import { authOfRequest, PUBLIC_KEY, ROLES_KEY } from '../../auth/auth.decorators';
import { clientAbortSignal, clientSignalOfRequest } from '../client-signal.decorator';

/** A controller method as the direct router serves it. */
export interface DirectRouteDefinition {
  method: string;
  /** `/api/v1/sessions/:id/act` */
  path: string;
  /** Null for a public route; else the roles that may call it. */
  roles: readonly ApiRole[] | null;
  /** The success status (`@HttpCode`, else Nest's default: 201 for POST, 200 otherwise). */
  status: number;
  /** `Controller.method`, for messages. */
  where: string;
  /**
   * Runs the method with its parameters resolved and piped as Nest would. `exchange` is the request and its
   * response, for a `@ClientSignal()` parameter (without it, that parameter is undefined).
   */
  invoke(auth: AuthContext | undefined, params: Readonly<Record<string, string>>, body: unknown, exchange?: HttpExchange): Promise<unknown>;
}

/** The node:http request being served and its response. */
export interface HttpExchange {
  req: IncomingMessage;
  res: ServerResponse;
}

/** Thrown at start-up: the method uses something the direct route cannot reproduce. */
export class DirectRouteDefinitionError extends Error {}

interface RouteArg {
  index: number;
  data?: unknown;
  pipes?: unknown[];
  factory?: unknown;
}

type ArgResolver = (auth: AuthContext | undefined, params: Readonly<Record<string, string>>, body: unknown, exchange?: HttpExchange) => unknown;

/** Types for which the global ValidationPipe is the identity (it validates class instances only). */
const PLAIN_TYPES = new Set<unknown>([String, Object, undefined]);

/**
 * Reads a `@DirectRoute()` method's Nest metadata (path, verb, roles, status, parameters and their pipes) into
 * a {@link DirectRouteDefinition}. Fails on what would make the direct route differ from the Nest route:
 * method-level guards, interceptors or filters; parameter kinds other than `@Auth()`, `@Param(name)`,
 * `@Body()`, `@ClientSignal()`; a pipe given as a class; a parameter typed as a class (the global ValidationPipe
 * would act on it; `@ClientSignal()`'s AbortSignal aside, which no pipe sees).
 */
export function compileDirectRoute(instance: object, methodName: string): DirectRouteDefinition {
  const controller = instance.constructor as new (...args: unknown[]) => unknown;
  const handler = (instance as Record<string, (...args: unknown[]) => Promise<unknown>>)[methodName];
  const where = `${controller.name}.${methodName}`;
  const fail = (problem: string): never => {
    throw new DirectRouteDefinitionError(`@DirectRoute() on ${where}: ${problem}`);
  };
  const ownPipeline: Array<[string, string]> = [[GUARDS_METADATA, 'guards'], [INTERCEPTORS_METADATA, 'interceptors'], [EXCEPTION_FILTERS_METADATA, 'exception filters']];
  for (const [key, what] of ownPipeline) {
    if (((Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller)) as unknown[] | undefined)?.length) fail(`controller or method ${what} are not supported (only the global guard and filter apply)`);
  }
  const verb = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
  if (verb === undefined || verb === RequestMethod.ALL) fail('needs one HTTP verb decorator (@Post, @Get, ...)');
  const method = RequestMethod[verb!];
  const path = joinPath(Reflect.getMetadata(PATH_METADATA, controller), Reflect.getMetadata(PATH_METADATA, handler));
  const isPublic = (Reflect.getMetadata(PUBLIC_KEY, handler) ?? Reflect.getMetadata(PUBLIC_KEY, controller)) === true;
  const roles = isPublic ? null : ((Reflect.getMetadata(ROLES_KEY, handler) ?? Reflect.getMetadata(ROLES_KEY, controller) ?? []) as ApiRole[]);
  const status = (Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined) ?? (verb === RequestMethod.POST ? 201 : 200);

  const paramTypes = (Reflect.getMetadata('design:paramtypes', instance, methodName) ?? []) as unknown[];
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, methodName) ?? {}) as Record<string, RouteArg>;
  const resolvers: ArgResolver[] = [];
  for (const [key, arg] of Object.entries(args)) {
    const type = Number(key.split(':')[0]) as RouteParamtypes;
    if (arg.factory === clientSignalOfRequest) {
      if (arg.pipes?.length) fail(`parameter ${arg.index}: @ClientSignal() takes no pipes`);
      resolvers[arg.index] = (_auth, _params, _body, exchange) => (exchange ? clientAbortSignal(exchange.req, exchange.res) : undefined);
      continue;
    }
    const pipes = (arg.pipes ?? []).map((p) => (typeof (p as PipeTransform).transform === 'function' ? (p as PipeTransform) : fail(`parameter ${arg.index}: pipes must be instances`)));
    if (!PLAIN_TYPES.has(paramTypes[arg.index])) fail(`parameter ${arg.index} is typed as a class; type it as an interface or string (validate it with a pipe instance)`);
    let read: ArgResolver;
    if (arg.factory === authOfRequest) read = (auth) => auth;
    else if (type === RouteParamtypes.PARAM && typeof arg.data === 'string') {
      const name = arg.data;
      if (!path.includes(`:${name}`)) fail(`@Param('${name}') is not in the path ${path}`);
      read = (_auth, params) => params[name];
    } else if (type === RouteParamtypes.BODY && arg.data === undefined) read = (_auth, _params, body) => body;
    else return fail(`parameter ${arg.index} is not @Auth(), @Param(name), @Body() or @ClientSignal()`);
    const metadata = { type: type === RouteParamtypes.BODY ? 'body' : type === RouteParamtypes.PARAM ? 'param' : 'custom', data: arg.data, metatype: paramTypes[arg.index] } as const;
    resolvers[arg.index] = pipes.length === 0 ? read : (auth, params, body) => pipes.reduce((value, pipe) => pipe.transform(value, metadata as never), read(auth, params, body));
  }
  if (resolvers.length !== handler.length || resolvers.some((r) => r === undefined)) fail('every parameter needs a decorator');
  return {
    method,
    path,
    roles,
    status,
    where,
    invoke: (auth, params, body, exchange) => {
      const values = resolvers.map((resolve) => resolve(auth, params, body, exchange));
      // Pipes may be async, as in Nest; the common case (all synchronous) costs no extra await.
      if (values.some(isThenable)) return Promise.all(values).then((resolved) => handler.apply(instance, resolved));
      return handler.apply(instance, values);
    },
  };
}

function isThenable(value: unknown): boolean {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function joinPath(...parts: unknown[]): string {
  const segments = parts.flatMap((p) => (typeof p === 'string' ? p.split('/') : [])).filter((s) => s.length > 0);
  return `/${segments.join('/')}`;
}
