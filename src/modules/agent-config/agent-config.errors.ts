/** Error codes of agents and bindings. */
export enum AgentConfigErrorCode {
  /** The tenant already has an agent with this name. */
  AGENT_NAME_TAKEN = 'AGENT_NAME_TAKEN',
}
