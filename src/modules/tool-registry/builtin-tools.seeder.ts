import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { AiToolEntity, PLATFORM_SCOPE } from './ai-tool.entity';
import { ToolRegistryRepository } from './tool-registry.repository';
import { WEB_SEARCH_TOOL_NAME } from './tool-registry.types';
import { isUniqueViolation } from '@app/database/unique-violation';
import { ConfigVersionService } from '@app/database/config-version.service';

type BuiltinDefinition = Pick<AiToolEntity, 'name' | 'description' | 'parameters' | 'endpoint' | 'sideEffect'>;

/** Platform tools that exist in the registry from the first start (platform-wide, source BUILTIN). */
export const BUILTIN_TOOL_DEFINITIONS: BuiltinDefinition[] = [
  {
    name: WEB_SEARCH_TOOL_NAME,
    description: 'Search the web. Returns the top results with title, URL and a snippet.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 500, description: 'What to search for' },
        count: { type: 'integer', minimum: 1, maximum: 10, description: 'How many results (default 5)' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    endpoint: 'WebSearch.search',
    sideEffect: 'READ_ONLY',
  },
];

/** Inserts missing built-in tools at start-up (safe with several instances starting at once). */
@Injectable()
export class BuiltinToolsSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger(BuiltinToolsSeeder.name);

  constructor(
    @InjectRepository(AiToolEntity) private readonly tools: Repository<AiToolEntity>,
    private readonly registry: ToolRegistryRepository,
    private readonly configVersion: ConfigVersionService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    for (const def of BUILTIN_TOOL_DEFINITIONS) {
      const existing = await this.tools.findOne({ where: { scopeKey: PLATFORM_SCOPE, name: def.name } });
      if (existing) continue;
      const now = Date.now();
      try {
        const row: AiToolEntity = {
          ...def,
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
          requires: [],
          enabled: true,
          status: 'ACTIVE',
          source: 'BUILTIN',
          version: 1,
          hitl: null,
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
}
