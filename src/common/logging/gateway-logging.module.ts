import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { GatewayLogging } from './gateway-logging';

/** The {@link GatewayLogging} of this app (bootstrap registers its request logger as Fastify hooks). */
const GATEWAY_LOGGING = Symbol('GATEWAY_LOGGING');

/**
 * nestjs-pino on the gateway's own pino logger: Nest's `Logger` writes through it, with the request's context.
 * `useExisting` and no routes: the request logger and its context come from Fastify hooks
 * (see `registerRequestLogging`), not from nestjs-pino's middleware.
 */
@Module({})
export class GatewayLoggingModule {
  static forRoot(logging: GatewayLogging): DynamicModule {
    return {
      module: GatewayLoggingModule,
      imports: [
        LoggerModule.forRoot({
          pinoHttp: { logger: logging.logger },
          useExisting: true,
          assignResponse: true,
          forRoutes: [],
        }),
      ],
      providers: [{ provide: GATEWAY_LOGGING, useValue: logging }],
      exports: [GATEWAY_LOGGING],
    };
  }
}
