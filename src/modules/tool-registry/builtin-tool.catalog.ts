import { Injectable } from '@nestjs/common';
import type { AiToolEntity } from './ai-tool.entity';
import { REGISTRY_BUILTIN_TOOLS } from './builtin-tools.definitions';

/** A platform built-in as its module declares it; the seeder turns it into a platform-wide `ai_tool` row. */
export type BuiltinToolDefinition = Pick<
  AiToolEntity,
  'name' | 'description' | 'parameters' | 'endpoint' | 'sideEffect'
> &
  Partial<Pick<AiToolEntity, 'requires' | 'hitl'>>;

/**
 * Every built-in tool of the gateway. A module that dispatches built-ins registers their definitions here in its
 * `onModuleInit`; {@link BuiltinToolsSeeder} writes them to the registry at application bootstrap.
 */
@Injectable()
export class BuiltinToolCatalog {
  private readonly byName = new Map<string, BuiltinToolDefinition>(REGISTRY_BUILTIN_TOOLS.map((d) => [d.name, d]));

  register(definitions: readonly BuiltinToolDefinition[]): void {
    for (const d of definitions) {
      if (this.byName.has(d.name) && this.byName.get(d.name) !== d)
        throw new Error(`Built-in tool ${d.name} is registered twice`);
      this.byName.set(d.name, d);
    }
  }

  definitions(): BuiltinToolDefinition[] {
    return [...this.byName.values()];
  }
}
