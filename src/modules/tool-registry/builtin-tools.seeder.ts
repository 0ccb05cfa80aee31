import { nameKeyOf } from '@app/common/name-key';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { canonicalJson } from '@app/common/canonical-json';
import { AiToolEntity, PLATFORM_SCOPE } from './ai-tool.entity';
import { ToolRegistryRepository } from './tool-registry.repository';
import { BuiltinToolCatalog, type BuiltinToolDefinition } from './builtin-tool.catalog';
import { isUniqueViolation } from '@app/database/unique-violation';
import { ConfigVersionService } from '@app/database/config-version.service';

/**
 * Writes the built-ins of the {@link BuiltinToolCatalog} to the registry at start-up: inserts missing ones and
 * refreshes a row whose definition changed in a new release (description, schema, side effect, requirements),
 * keeping what an admin set (enabled). Safe with several instances starting at once.
 */
@Injectable()
export class BuiltinToolsSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger(BuiltinToolsSeeder.name);

  constructor(
    @InjectRepository(AiToolEntity) private readonly tools: Repository<AiToolEntity>,
    private readonly registry: ToolRegistryRepository,
    private readonly configVersion: ConfigVersionService,
    private readonly catalog: BuiltinToolCatalog,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const def of this.catalog.definitions()) await this.seed(def);
  }

  private async seed(def: BuiltinToolDefinition): Promise<void> {
    const existing = await this.tools.findOne({ where: { scopeKey: PLATFORM_SCOPE, nameKey: nameKeyOf(def.name) } });
    if (existing) {
      // A row with a checksum belongs to the @Tool scanner (feign-registration); the seeder leaves it alone.
      if (existing.source !== 'BUILTIN' || existing.definitionChecksum !== null) return;
      if (sameDefinition(existing, def)) return;
      await this.registry.update(this.tools.manager, existing.id, {
        ...definitionColumns(def),
        version: existing.version + 1,
        updatedAt: Date.now(),
      });
      await this.configVersion.bump();
      this.logger.log(`Refreshed built-in tool ${def.name} (version ${existing.version + 1})`);
      return;
    }
    const now = Date.now();
    try {
      const row: AiToolEntity = {
        ...definitionColumns(def),
        name: def.name,
        nameKey: nameKeyOf(def.name),
        id: randomUUID(),
        tenantId: null,
        scopeKey: PLATFORM_SCOPE,
        serviceType: 'LOCAL',
        httpMethod: null,
        headers: null,
        timeoutMs: null,
        permissionTags: [],
        tags: ['builtin'],
        remoteName: null,
        enabled: true,
        status: 'ACTIVE',
        source: 'BUILTIN',
        version: 1,
        result: null,
        mcpServiceId: null,
        definitionChecksum: null,
        createdAt: now,
        updatedAt: now,
      };
      await this.registry.insert(this.tools.manager, row);
      await this.configVersion.bump();
      this.logger.log(`Registered built-in tool ${def.name}`);
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
    }
  }
}

function definitionColumns(def: BuiltinToolDefinition) {
  return {
    description: def.description,
    parameters: def.parameters,
    endpoint: def.endpoint,
    sideEffect: def.sideEffect,
    requires: def.requires ?? [],
    hitl: def.hitl ?? null,
  };
}

/** The row already says what the definition says (an admin's `enabled` is not part of it). */
function sameDefinition(row: AiToolEntity, def: BuiltinToolDefinition): boolean {
  const fromRow = definitionColumns({ ...row, hitl: row.hitl ?? undefined });
  return canonicalJson(fromRow) === canonicalJson(definitionColumns(def));
}
