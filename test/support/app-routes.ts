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
