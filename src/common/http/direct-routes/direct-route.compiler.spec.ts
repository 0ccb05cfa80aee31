import 'reflect-metadata';
import { Body, Controller, Get, HttpCode, Param, PipeTransform, Post, Query, UseGuards } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Auth, Public, Roles } from '../../auth/auth.decorators';
import { ClientClosedRequestError, ClientSignal } from '../client-signal.decorator';
import type { AuthContext } from '../../auth/auth-context';
import { compileDirectRoute, DirectRouteDefinitionError } from './direct-route.compiler';

class UpperCaseName implements PipeTransform<{ name: string }, { name: string }> {
  transform(value: { name: string }) {
    if (typeof value?.name !== 'string') throw new Error('name is required');
    return { name: value.name.toUpperCase() };
  }
}

interface Greeting {
  name: string;
}

@Roles('runtime')
@Controller('api/v1/things')
class ThingsController {
  @Post(':id/greet')
  @HttpCode(200)
  greet(@Auth() auth: AuthContext, @Param('id') id: string, @Body(new UpperCaseName()) body: Greeting) {
    return Promise.resolve({ tenant: auth.tenantId, id, name: body.name });
  }

  @Post(':id/watch')
  @HttpCode(200)
  watch(@Param('id') id: string, @ClientSignal() signal: AbortSignal) {
    return Promise.resolve({ id, signal });
  }

  @Post('created')
  create(@Body() body: Greeting) {
    return Promise.resolve(body);
  }

  @Get('open')
  @Public()
  open() {
    return Promise.resolve({ ok: true });
  }

  @Get('search')
  search(@Query('q') q: string) {
    return Promise.resolve(q);
  }

  @Post('guarded')
  @UseGuards(class {
    canActivate() {
      return true;
    }
  })
  guarded(@Body() body: Greeting) {
    return Promise.resolve(body);
  }
}

const controller = new ThingsController();
const runtime: AuthContext = { keyId: 'k', role: 'runtime', tenantId: 'acme' };

describe('compileDirectRoute', () => {
  it('reads path, verb, roles and status from the Nest metadata, and runs the pipes before the method', async () => {
    const route = compileDirectRoute(controller, 'greet');
    expect(route).toMatchObject({ method: 'POST', path: '/api/v1/things/:id/greet', roles: ['runtime'], status: 200, where: 'ThingsController.greet' });
    await expect(route.invoke(runtime, { id: '7' }, { name: 'ada' })).resolves.toEqual({ tenant: 'acme', id: '7', name: 'ADA' });
    expect(() => route.invoke(runtime, { id: '7' }, {})).toThrow('name is required');
  });

  it("uses Nest's default status (201 for POST) and marks public routes", () => {
    expect(compileDirectRoute(controller, 'create').status).toBe(201);
    expect(compileDirectRoute(controller, 'open')).toMatchObject({ method: 'GET', status: 200, roles: null });
  });

  it('refuses, naming the method, what it cannot reproduce: other parameter kinds and method guards', () => {
    expect(() => compileDirectRoute(controller, 'search')).toThrow(DirectRouteDefinitionError);
    expect(() => compileDirectRoute(controller, 'search')).toThrow(/ThingsController\.search.*@Auth\(\), @Param\(name\), @Body\(\) or @ClientSignal\(\)/);
    expect(() => compileDirectRoute(controller, 'guarded')).toThrow(/ThingsController\.guarded.*guards/);
  });

  it("gives a @ClientSignal() parameter a signal that aborts when the client goes away before the answer is sent", async () => {
    const route = compileDirectRoute(controller, 'watch');
    const res = Object.assign(new EventEmitter(), { writableFinished: false, destroyed: false }) as unknown as ServerResponse;
    const { signal } = (await route.invoke(undefined, { id: '1' }, {}, { req: {} as IncomingMessage, res })) as { signal: AbortSignal };
    expect(signal.aborted).toBe(false);
    res.emit('close');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(ClientClosedRequestError);

    const finished = Object.assign(new EventEmitter(), { writableFinished: true, destroyed: false }) as unknown as ServerResponse;
    const done = (await route.invoke(undefined, { id: '1' }, {}, { req: {} as IncomingMessage, res: finished })) as { signal: AbortSignal };
    finished.emit('close');
    expect(done.signal.aborted).toBe(false);
  });
});
