export const TASK_STATUSES = ['QUEUED', 'RUNNING', 'INTERRUPTED', 'COMPLETED', 'FAILED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** What CHECK_TASK_STATUS and GET /admin/tasks answer. */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  answer?: string;
  /** Why the child's final answer ended, when not as its model meant it (`length`: cut at its token limit). */
  finishReason?: string;
  error?: string;
  agent: string;
  parentSessionId: string;
  parentToolCallId: string;
  childSessionId: string;
  depth: number;
  createdAt: string;
}

export const SUB_AGENT_CALL = 'SUB_AGENT_CALL';
export const SUBMIT_SUBAGENT_TASK = 'SUBMIT_SUBAGENT_TASK';
export const CHECK_TASK_STATUS = 'CHECK_TASK_STATUS';
