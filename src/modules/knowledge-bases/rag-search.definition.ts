import type { BuiltinToolDefinition } from '@app/modules/tool-registry/builtin-tool.catalog';
import { SEARCH_MAX_TOP_K } from './knowledge-bases.types';

export const RAG_SEARCH_TOOL_NAME = 'RAG_SEARCH';

/** The RAG_SEARCH built-in: hidden at DEPENDENCIES until a knowledge base is bound to the agent. */
export const RAG_SEARCH_TOOL: BuiltinToolDefinition = {
  name: RAG_SEARCH_TOOL_NAME,
  description:
    "Search the agent's knowledge bases for passages relevant to a question. Returns JSON {results: [{documentId, title, content, score, heading, knowledgeBase}]}, best first. Give `knowledgeBase` (a name) to search only that one.",
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 1000, description: 'What to look for, in words' },
      topK: {
        type: 'integer',
        minimum: 1,
        maximum: SEARCH_MAX_TOP_K,
        description: 'How many passages (default 5)',
      },
      knowledgeBase: {
        type: 'string',
        minLength: 1,
        maxLength: 128,
        description: 'The name of one bound knowledge base; omit to search them all',
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  endpoint: 'KnowledgeBases.ragSearch',
  sideEffect: 'READ_ONLY',
  requires: ['KNOWLEDGE_BASE'],
};
