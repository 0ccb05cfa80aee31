/** Error codes of the gateway's own agent loop. */
export enum AgentRunsErrorCode {
  /** The session's conversation is busy: a run of it is running or waits for a decision. */
  RUN_IN_PROGRESS = 'RUN_IN_PROGRESS',
  /** The session's agent has no model provider, so the gateway cannot run it. */
  AGENT_HAS_NO_MODEL = 'AGENT_HAS_NO_MODEL',
}
