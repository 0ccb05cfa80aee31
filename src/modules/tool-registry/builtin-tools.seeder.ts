import { nameKeyOf } from '@app/common/name-key';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { AiToolEntity, PLATFORM_SCOPE } from './ai-tool.entity';
import { ToolRegistryRepository } from './tool-registry.repository';
import { READ_TOOL_RESULT_TOOL_NAME, UPDATE_TODO_LIST_TOOL_NAME, WEB_SEARCH_TOOL_NAME } from './tool-registry.types';
import { isUniqueViolation } from '@app/database/unique-violation';
import { ConfigVersionService } from '@app/database/config-version.service';

type BuiltinDefinition = Pick<AiToolEntity, 'name' | 'description' | 'parameters' | 'endpoint' | 'sideEffect'>;

/** Platform tools that exist in the registry from the first start (platform-wide, source BUILTIN). */
const BUILTIN_TOOL_DEFINITIONS: BuiltinDefinition[] = [
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
  {
    name: READ_TOOL_RESULT_TOOL_NAME,
    description:
      'Read more of an earlier tool result that came back truncated. Give its toolCallId and the offset to start at (the truncation note says which); returns up to `limit` characters.',
    parameters: {
      type: 'object',
      properties: {
        toolCallId: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
          description: 'The toolCallId of the truncated result',
        },
        offset: { type: 'integer', minimum: 0, description: 'First character to read (default 0)' },
        limit: { type: 'integer', minimum: 1, maximum: 20000, description: 'How many characters (default 4000)' },
      },
      required: ['toolCallId'],
      additionalProperties: false,
    },
    endpoint: 'SessionBuiltins.readToolResult',
    sideEffect: 'READ_ONLY',
  },
  {
    name: UPDATE_TODO_LIST_TOOL_NAME,
    description:
      "Replace the task's todo list with the given items (keep it current: mark items in_progress and completed as you go).",
    parameters: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          maxItems: 100,
          items: {
            type: 'object',
            properties: {
              id: { type: 'string', maxLength: 64 },
              content: { type: 'string', minLength: 1, maxLength: 500 },
              status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] },
            },
            required: ['content', 'status'],
            additionalProperties: false,
          },
        },
      },
      required: ['items'],
      additionalProperties: false,
    },
    endpoint: 'SessionBuiltins.updateTodoList',
    sideEffect: 'IDEMPOTENT',
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
      const existing = await this.tools.findOne({ where: { scopeKey: PLATFORM_SCOPE, nameKey: nameKeyOf(def.name) } });
      if (existing) continue;
      const now = Date.now();
      try {
        const row: AiToolEntity = {
          ...def,
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
