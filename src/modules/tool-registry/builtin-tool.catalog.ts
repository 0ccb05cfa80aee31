import { Injectable } from '@nestjs/common';
import type { AiToolEntity } from './ai-tool.entity';
import { REGISTRY_BUILTIN_TOOLS } from './builtin-tools.definitions';
import type { ToolDescriptor } from './tool-registry.types';

/** A platform built-in as its module declares it; the seeder turns it into a platform-wide `ai_tool` row. */
export type BuiltinToolDefinition = Pick<
  AiToolEntity,
  'name' | 'description' | 'parameters' | 'endpoint' | 'sideEffect'
> &
  Partial<Pick<AiToolEntity, 'requires' | 'hitl'>> & {
    /**
     * A call left STARTED by a gateway that died runs again when it is submitted again, as a READ_ONLY call does,
     * instead of asking a human about its unknown outcome: the built-in keys what it does by the toolCallId, so the
     * second attempt finds what the first one started (a sub-agent's child) rather than doing it twice.
     */
    runsAgainAfterCrash?: true;
    /**
     * Built-ins that bring this one: an agent bound to any of them may call it without a binding of its own (the
     * answers of those tools point to it).
     */
    comesWith?: readonly string[];
  };

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

  /** The built-ins that bring `tool` ({@link BuiltinToolDefinition.comesWith}); none for any other tool. */
  comesWith(tool: Pick<ToolDescriptor, 'name' | 'source' | 'tenantId'>): readonly string[] {
    if (tool.source !== 'BUILTIN' || tool.tenantId !== null) return [];
    return this.byName.get(tool.name)?.comesWith ?? [];
  }

  /** The tool is a platform built-in declared {@link BuiltinToolDefinition.runsAgainAfterCrash}. */
  runsAgainAfterCrash(tool: Pick<ToolDescriptor, 'name' | 'source' | 'tenantId'>): boolean {
    if (tool.source !== 'BUILTIN' || tool.tenantId !== null) return false;
    return this.byName.get(tool.name)?.runsAgainAfterCrash === true;
  }
}
