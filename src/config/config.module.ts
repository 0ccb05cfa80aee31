import { DynamicModule, Global, Module } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from './gateway-config';

/** Provides the one validated {@link GatewayConfig} to every module. */
@Global()
@Module({})
export class GatewayConfigModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: GatewayConfigModule,
      providers: [{ provide: GATEWAY_CONFIG, useValue: config }],
      exports: [GATEWAY_CONFIG],
    };
  }
}
