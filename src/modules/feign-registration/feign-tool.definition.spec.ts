import 'reflect-metadata';
import { IsOptional } from 'class-validator';
import { ToolSchemaCompiler } from '@app/modules/tool-registry/tool-schema.compiler';
import { resolveLocalToolDefinition } from './feign-tool.definition';
import { FeignTool, Tool } from './feign-tool.decorator';
import type { LocalToolOptions } from './feign-tool.options';

const at = { provider: 'OrdersService', method: 'getOrder', module: 'OrdersModule' };
const valid: LocalToolOptions = {
  description: 'Looks up an order.',
  sideEffect: 'READ_ONLY',
  parameters: { type: 'object' },
};
const resolve = (options: Partial<LocalToolOptions>, source: 'FEIGN' | 'BUILTIN' = 'FEIGN') =>
  resolveLocalToolDefinition({ source, options: { ...valid, ...options } }, at, new ToolSchemaCompiler());

describe('resolveLocalToolDefinition', () => {
  it('fills defaults: snake_case name, endpoint Provider.method, empty lists, nulls', () => {
    expect(resolve({}).definition).toEqual({
      name: 'get_order',
      description: 'Looks up an order.',
      parameters: { type: 'object' },
      source: 'FEIGN',
      serviceType: 'FEIGN',
      endpoint: 'OrdersService.getOrder',
      sideEffect: 'READ_ONLY',
      timeoutMs: null,
      permissionTags: [],
      tags: [],
      requires: [],
      hitl: null,
      result: null,
    });
  });

  it('maps @Tool to BUILTIN / LOCAL', () => {
    expect(resolve({}, 'BUILTIN').definition).toMatchObject({ source: 'BUILTIN', serviceType: 'LOCAL' });
  });

  it('requires a declared side-effect level (no default)', () => {
    expect(resolve({ sideEffect: undefined }).problems).toEqual([
      expect.stringMatching(/^sideEffect must be declared/),
    ]);
  });

  it('lists every problem at once: name, description, timeout, requirements', () => {
    const { problems } = resolve({ name: 'get order!', description: ' ', timeoutMs: 0, requires: ['GPU' as never] });
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(
      /name "get order!"[\s\S]*description is required[\s\S]*timeoutMs[\s\S]*requires: GPU/,
    );
  });

  it('names what is wrong with the parameters, from a DTO class or a schema', () => {
    class VagueDto {
      @IsOptional() anything?: unknown;
    }
    expect(resolve({ parameters: { type: 'array' } }).problems[0]).toMatch(
      /^parameters: JSON Schema must have "type": "object"/,
    );
    expect(resolve({ parameters: undefined }).problems[0]).toMatch(/parameters is required/);
    expect(resolve({ parameters: VagueDto }).problems[0]).toMatch(
      /^parameters: VagueDto\.anything: cannot tell its type/,
    );
  });

  it('copies the declared objects, so later mutation of the options cannot change the registered definition', () => {
    const parameters = { type: 'object', properties: { a: { type: 'string' } } };
    const def = resolve({ parameters }).definition!;
    parameters.properties.a.type = 'number';
    expect(def.parameters).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });
});

describe('@Tool / @FeignTool', () => {
  it('refuses both on one method when the class is defined', () => {
    expect(() => {
      class Twice {
        @Tool(valid)
        @FeignTool(valid)
        run(): void {}
      }
      return Twice;
    }).toThrow(/Twice\.run carries more than one @Tool\/@FeignTool decorator/);
  });
});
