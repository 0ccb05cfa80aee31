import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { DIRECT_ROUTE_KEY } from './direct-route.decorator';
import { compileDirectRoute, DirectRouteDefinition } from './direct-route.compiler';

/** Finds the `@DirectRoute()` controller methods (see DirectRouter). */
@Injectable()
export class DirectRouteExplorer {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  routes(): DirectRouteDefinition[] {
    const routes: DirectRouteDefinition[] = [];
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        if (Reflect.getMetadata(DIRECT_ROUTE_KEY, prototype[method] as object) === true) routes.push(compileDirectRoute(instance, method));
      }
    }
    return routes;
  }
}
