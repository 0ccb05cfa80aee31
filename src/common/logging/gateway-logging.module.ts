import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { GatewayLogging } from './gateway-logging';

/** The {@link GatewayLogging} of this app (bootstrap registers its request logger as Fastify hooks). */
const GATEWAY_LOGGING = Symbol('GATEWAY_LOGGING');

/**
 * nestjs-pino on the gateway's own pino logger: Nest's `Logger` writes through it. `useExisting` and no routes: the
 * completion lines come from Fastify hooks (see `registerRequestLogging`), not from nestjs-pino's middleware, and
 * nothing enters its `AsyncLocalStorage`: a line gets its request's fields from the work that writes it
 * (`fieldLine`, see `log-context.ts`).
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
