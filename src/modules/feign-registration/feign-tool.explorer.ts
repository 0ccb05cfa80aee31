import { nameKeyOf } from '@app/common/name-key';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { ToolSchemaCompiler } from '@app/modules/tool-registry/tool-schema.compiler';
import { LOCAL_TOOL_METADATA, LocalToolMetadata } from './feign-tool.options';
import type { LocalToolHandler, LocalToolLocation, LocalToolRegistration } from './feign-tool.types';
import { resolveLocalToolDefinition } from './feign-tool.definition';
import { definitionChecksum } from './feign-tool.checksum';
import { LocalToolHandlerRegistry } from './local-tool-handler.registry';
import { FeignToolDefinitionError } from './feign-tool-definition.error';

/**
 * Finds `@Tool` / `@FeignTool` methods on singleton providers during module init, as @nestjs/schedule finds
 * its jobs, and fills the {@link LocalToolHandlerRegistry}. Invalid declarations and duplicate names stop
 * start-up. No database work here: the reconciler writes after bootstrap.
 */
@Injectable()
export class FeignToolExplorer implements OnModuleInit {
  private readonly logger = new Logger(FeignToolExplorer.name);

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly schemas: ToolSchemaCompiler,
    private readonly registry: LocalToolHandlerRegistry,
  ) {}

  onModuleInit(): void {
    this.registry.replaceAll(this.explore());
  }

  explore(): LocalToolRegistration[] {
    const found: LocalToolRegistration[] = [];
    const problems: string[] = [];
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      const prototype = (instance ? Object.getPrototypeOf(instance) : wrapper.metatype?.prototype) as Record<
        string,
        unknown
      > | null;
      // Aliases (useExisting) and re-registered values point at an instance already walked.
      if (wrapper.isAlias || !prototype || (instance && seen.has(instance))) continue;
      if (instance) seen.add(instance);
      const singleton = !wrapper.isTransient && wrapper.isDependencyTreeStatic();
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const meta = Reflect.getMetadata(LOCAL_TOOL_METADATA, prototype[method] as object) as
          LocalToolMetadata | undefined;
        if (!meta) continue;
        const at = locationOf(wrapper, instance, method);
        if (!singleton || !instance) {
          this.logger.warn(
            `Skipped tool on ${at.provider}.${method}: ${at.provider} is request-scoped or transient; tools must live on singleton providers.`,
          );
          continue;
        }
        const result = resolveLocalToolDefinition(meta, at, this.schemas);
        if (!result.definition) {
          problems.push(`${at.provider}.${method} (in ${at.module}): ${result.problems.join('; ')}`);
          continue;
        }
        const handler = (instance[method] as LocalToolHandler).bind(instance);
        found.push({
          definition: result.definition,
          checksum: definitionChecksum(result.definition),
          location: at,
          handler,
        });
      }
    }
    problems.push(...duplicates(found));
    if (problems.length) throw new FeignToolDefinitionError(problems);
    if (found.length)
      this.logger.log(`Found ${found.length} local tool(s): ${found.map((f) => f.definition.name).join(', ')}`);
    return found;
  }
}

function locationOf(wrapper: InstanceWrapper, instance: object | undefined, method: string): LocalToolLocation {
  const provider =
    (instance?.constructor as { name?: string } | undefined)?.name ?? wrapper.metatype?.name ?? String(wrapper.name);
  return { provider, method, module: wrapper.host?.name ?? 'unknown module' };
}

const where = (r: LocalToolRegistration): string =>
  `${r.location.provider}.${r.location.method} (in ${r.location.module})`;

function duplicates(found: LocalToolRegistration[]): string[] {
  const problems: string[] = [];
  const byName = new Map<string, LocalToolRegistration>();
  const byEndpoint = new Map<string, LocalToolRegistration>();
  for (const r of found) {
    const sameName = byName.get(nameKeyOf(r.definition.name));
    if (sameName) {
      const named =
        sameName.definition.name === r.definition.name
          ? `"${r.definition.name}"`
          : `"${sameName.definition.name}" (names differ only in case: they are one name)`;
      problems.push(
        `tool name ${named} is declared twice: ${where(sameName)} and ${where(r)}; give one of them another name (options.name)`,
      );
    }
    const sameEndpoint = byEndpoint.get(r.definition.endpoint);
    if (sameEndpoint && !sameName) {
      problems.push(
        `${where(sameEndpoint)} and ${where(r)} share the endpoint "${r.definition.endpoint}"; rename one provider class (the endpoint names the class)`,
      );
    }
    byName.set(nameKeyOf(r.definition.name), r);
    byEndpoint.set(r.definition.endpoint, r);
  }
  return problems;
}
