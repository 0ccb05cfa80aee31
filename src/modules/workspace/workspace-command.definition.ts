import type { BuiltinToolDefinition } from '@app/modules/tool-registry/builtin-tool.catalog';

/** RUN_COMMAND (contract "v2: built-in tools"): a shell command in the sandbox, the workspace as /workspace. */
export const RUN_COMMAND_TOOL: BuiltinToolDefinition = {
  name: 'RUN_COMMAND',
  description:
    'Run a shell command (/bin/sh -c) in a sandbox: the session workspace is the working directory /workspace (read-write), the active skill is at /skills/<name> (read-only), there is no network. Answers JSON {exitCode, stdout, stderr, truncated, durationMs}; a non-zero exit code is an answer, not a failure. Output is capped; long output is better written to a file and read with READ_FILE.',
  parameters: {
    type: 'object',
    properties: {
      command: { type: 'string', minLength: 1, maxLength: 100_000, description: 'The shell command' },
      timeoutMs: {
        type: 'integer',
        minimum: 100,
        maximum: 3_600_000,
        description: 'Wall-time limit in ms (capped by the server; default its maximum)',
      },
    },
    required: ['command'],
    additionalProperties: false,
  },
  endpoint: 'Workspace.runCommand',
  sideEffect: 'SIDE_EFFECT',
  requires: ['SANDBOX'],
};
