import { READ_TOOL_RESULT_TOOL_NAME, UPDATE_TODO_LIST_TOOL_NAME, WEB_SEARCH_TOOL_NAME } from './tool-registry.types';
import type { BuiltinToolDefinition } from './builtin-tool.catalog';

/** The registry's own built-ins; other modules register theirs with the BuiltinToolCatalog. */
export const REGISTRY_BUILTIN_TOOLS: BuiltinToolDefinition[] = [
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
