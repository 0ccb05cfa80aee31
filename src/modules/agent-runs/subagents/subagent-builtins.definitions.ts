import type { BuiltinToolDefinition } from '@app/modules/tool-registry/builtin-tool.catalog';
import { CHECK_TASK_STATUS, SUB_AGENT_CALL, SUBMIT_SUBAGENT_TASK } from './agent-tasks.types';

const DELEGATION = {
  agent: { type: 'string', minLength: 1, maxLength: 128, description: 'The sub-agent, by name' },
  task: { type: 'string', minLength: 1, maxLength: 100000, description: 'What the sub-agent should do, in full' },
};

/**
 * The sub-agent built-ins (v2 contract). Keyed by the calling toolCallId, so a retried call starts no second task:
 * after a crash the call runs again on its own and finds the task its first attempt started.
 */
export const SUBAGENT_BUILTIN_TOOLS: BuiltinToolDefinition[] = [
  {
    name: SUB_AGENT_CALL,
    description:
      'Delegate a task to one of your sub-agents and wait for its answer (up to waitMs). If it is not done in time you get {taskId, status}: check it later with CHECK_TASK_STATUS; you are told when it finishes.',
    parameters: {
      type: 'object',
      properties: {
        ...DELEGATION,
        waitMs: { type: 'integer', minimum: 0, maximum: 50000, description: 'How long to wait (default 30000)' },
      },
      required: ['agent', 'task'],
      additionalProperties: false,
    },
    endpoint: 'AgentTasks.call',
    sideEffect: 'IDEMPOTENT',
    runsAgainAfterCrash: true,
    requires: ['SUB_AGENT'],
  },
  {
    name: SUBMIT_SUBAGENT_TASK,
    description:
      'Queue a task for one of your sub-agents and go on at once; you get {taskId, status: QUEUED} and are told when it finishes (CHECK_TASK_STATUS reads its answer).',
    parameters: { type: 'object', properties: DELEGATION, required: ['agent', 'task'], additionalProperties: false },
    endpoint: 'AgentTasks.submit',
    sideEffect: 'IDEMPOTENT',
    runsAgainAfterCrash: true,
    requires: ['SUB_AGENT'],
  },
  {
    name: CHECK_TASK_STATUS,
    description:
      'The status of a sub-agent task you started: QUEUED, RUNNING, INTERRUPTED, COMPLETED (with its answer) or FAILED.',
    parameters: {
      type: 'object',
      properties: { taskId: { type: 'string', minLength: 1, maxLength: 36 } },
      required: ['taskId'],
      additionalProperties: false,
    },
    endpoint: 'AgentTasks.check',
    sideEffect: 'READ_ONLY',
    // Their answers and reminders send the model here: an agent that may delegate may also read how it went.
    comesWith: [SUB_AGENT_CALL, SUBMIT_SUBAGENT_TASK],
  },
];
