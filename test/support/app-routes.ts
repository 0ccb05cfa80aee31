import type { INestApplication } from '@nestjs/common';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';

/** One HTTP route the app registers: `path` in Nest's form (`/api/v1/sessions/:id`). */
export interface AppRoute {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
}

const METHODS: Partial<Record<RequestMethod, AppRoute['method']>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.DELETE]: 'delete',
};

/**
 * Every route of every controller the running app holds, read from Nest's own routing metadata (what its router
 * registers on Fastify), so a route added tomorrow is listed without anyone writing it down.
 */
export function routesOf(app: INestApplication): AppRoute[] {
  const scanner = new MetadataScanner();
  const routes = new Map<string, AppRoute>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const type = wrapper.metatype as (new (...args: unknown[]) => unknown) | undefined;
      if (!type?.prototype) continue;
      const bases = asList(Reflect.getMetadata(PATH_METADATA, type));
      for (const name of scanner.getAllMethodNames(type.prototype)) {
        const handler = (type.prototype as Record<string, unknown>)[name] as object;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (paths === undefined || requestMethod === undefined) continue;
        const method = METHODS[requestMethod];
        if (!method) throw new Error(`${type.name}.${name}: a route with method ${requestMethod} the list cannot name`);
        for (const base of bases) {
          for (const sub of asList(paths)) {
            const path =
              '/' +
              [base, sub]
                .flatMap((p) => p.split('/'))
                .filter(Boolean)
                .join('/');
            routes.set(`${method} ${path}`, { method, path });
          }
        }
      }
    }
  }
  return [...routes.values()].sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
}

function asList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [''];
  return Array.isArray(value) ? value : [value];
}

/**
 * Every route Fastify itself serves (HEAD ones left out), Nest's and any registered on Fastify directly, read from
 * Fastify's route tree (`printRoutes`). Parameter names are Fastify's (`:id|:agentId` where two routes name one
 * segment differently; the first is kept).
 */
export function fastifyRoutesOf(app: INestApplication): Array<{ method: string; path: string }> {
  const fastify = app.getHttpAdapter().getInstance() as { printRoutes(o: { commonPrefix: boolean }): string };
  const routes: Array<{ method: string; path: string }> = [];
  const parents: string[] = [];
  for (const line of fastify.printRoutes({ commonPrefix: false }).split('\n')) {
    const node = /^((?:│ {3}| {4})*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!node) continue;
    const depth = node[1].length / 4;
    const path = (parents[depth - 1] ?? '') + node[2].replace(/(:\w+)(\|:\w+)+/g, '$1');
    parents[depth] = path;
    for (const method of (node[3] ?? '').split(', ').filter((m) => m && m !== 'HEAD')) {
      routes.push({ method: method.toLowerCase(), path });
    }
  }
  return routes;
}
