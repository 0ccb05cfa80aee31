import type { BuiltinToolDefinition } from '@app/modules/tool-registry/builtin-tool.catalog';

const PATH = {
  type: 'string',
  minLength: 1,
  maxLength: 1024,
  description: 'Path relative to the workspace root, e.g. notes/todo.md (no "..", not absolute)',
};

/** The workspace built-ins (contract "v2: built-in tools"); RUN_COMMAND is registered with the sandbox wiring. */
export const WORKSPACE_BUILTIN_TOOLS: BuiltinToolDefinition[] = [
  {
    name: 'LIST_FILES',
    description:
      'List the files and folders of the session workspace (or of one folder in it). Symlinks are shown, not followed.',
    parameters: {
      type: 'object',
      properties: {
        path: { ...PATH, minLength: 0, description: 'Folder relative to the workspace root (default: the root)' },
        recursive: { type: 'boolean', description: 'Also list everything below (default false)' },
      },
      additionalProperties: false,
    },
    endpoint: 'Workspace.listFiles',
    sideEffect: 'READ_ONLY',
    requires: ['FILE_ROOM'],
  },
  {
    name: 'READ_FILE',
    description:
      'Read a text file of the session workspace. Answers JSON {path, offset, limit, totalChars, hasMore, content}; read on with offset = offset + content length while hasMore.',
    parameters: {
      type: 'object',
      properties: {
        path: PATH,
        offset: { type: 'integer', minimum: 0, description: 'First character to read (default 0)' },
        limit: { type: 'integer', minimum: 1, maximum: 20000, description: 'How many characters (default 4000)' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    endpoint: 'Workspace.readFile',
    sideEffect: 'READ_ONLY',
    requires: ['FILE_ROOM'],
  },
  {
    name: 'WRITE_FILE',
    description: 'Write a text file in the session workspace (replaces it if it exists; creates missing folders).',
    parameters: {
      type: 'object',
      properties: { path: PATH, content: { type: 'string', description: 'The whole new content (UTF-8 text)' } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    endpoint: 'Workspace.writeFile',
    sideEffect: 'IDEMPOTENT',
    requires: ['FILE_ROOM'],
  },
  {
    name: 'EDIT_FILE',
    description:
      'Replace one exact piece of text in a workspace file. oldText must occur exactly once (include enough surrounding text); otherwise nothing changes and the answer says how many times it occurs.',
    parameters: {
      type: 'object',
      properties: {
        path: PATH,
        oldText: { type: 'string', minLength: 1, description: 'The exact text to replace (occurs once)' },
        newText: { type: 'string', description: 'The replacement' },
      },
      required: ['path', 'oldText', 'newText'],
      additionalProperties: false,
    },
    endpoint: 'Workspace.editFile',
    sideEffect: 'SIDE_EFFECT',
    requires: ['FILE_ROOM'],
  },
  {
    name: 'DELETE_FILE',
    description: 'Delete a file, a symlink (not what it points to) or a folder with its content from the workspace.',
    parameters: { type: 'object', properties: { path: PATH }, required: ['path'], additionalProperties: false },
    endpoint: 'Workspace.deleteFile',
    sideEffect: 'SIDE_EFFECT',
    requires: ['FILE_ROOM'],
  },
  {
    name: 'PUBLISH_FILE',
    description:
      'Publish a workspace file as an artifact: an immutable copy the user can download. Answers {artifactId, name, size, sha256}.',
    parameters: {
      type: 'object',
      properties: {
        path: PATH,
        title: { type: 'string', maxLength: 255, description: 'A title for the artifact' },
      },
      required: ['path'],
      additionalProperties: false,
    },
    endpoint: 'Workspace.publishFile',
    sideEffect: 'SIDE_EFFECT',
    requires: ['FILE_ROOM'],
  },
];
