import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { DirectRouteExplorer } from './direct-route.explorer';

/** Provides the explorer that createGatewayApp asks for the direct router. */
@Module({
  imports: [DiscoveryModule],
  providers: [DirectRouteExplorer],
  exports: [DirectRouteExplorer],
})
export class DirectRoutesModule {}
