import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { GatewayLogging } from './gateway-logging';

/** The {@link GatewayLogging} of this app (bootstrap installs its request logger on the HTTP server). */
const GATEWAY_LOGGING = Symbol('GATEWAY_LOGGING');

/**
 * nestjs-pino on the gateway's own pino logger: Nest's `Logger` writes through it, with the request's context.
 * `useExisting`: the request logger is made ahead of Express (see `installRequestLogging`), not by middleware.
 */
@Module({})
export class GatewayLoggingModule {
  static forRoot(logging: GatewayLogging): DynamicModule {
    return {
      module: GatewayLoggingModule,
      imports: [LoggerModule.forRoot({ pinoHttp: { logger: logging.logger }, useExisting: true, assignResponse: true })],
      providers: [{ provide: GATEWAY_LOGGING, useValue: logging }],
      exports: [GATEWAY_LOGGING],
    };
  }
}
