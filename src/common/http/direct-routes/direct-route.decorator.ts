import { SetMetadata } from '@nestjs/common';

export const DIRECT_ROUTE_KEY = 'gateway:direct-route';

/**
 * Serves this controller method straight from node:http, ahead of Express and the Nest router (see
 * DirectRouter): for the per-call endpoints (`act`, `execute`) whose budget is a fraction of a millisecond.
 * The method stays the one definition of the endpoint (path, roles, validation pipe, status code, Swagger);
 * the direct route reads all of it from the method's metadata at start-up, and start-up fails when the
 * method uses a parameter kind the direct route cannot provide. Supported parameters: `@Auth()`,
 * `@Param(name)`, `@Body(pipe)` and `@ClientSignal()`.
 */
export const DirectRoute = (): MethodDecorator => SetMetadata(DIRECT_ROUTE_KEY, true);
