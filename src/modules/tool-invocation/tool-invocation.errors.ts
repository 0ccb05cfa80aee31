/** Error codes of executeDirect and the call preparation shared with `act`. */
export enum ToolInvocationErrorCode {
  /** The call needs a human (HIGH_RISK tool, approval policy or risky arguments); executeDirect cannot ask one. */
  HITL_REQUIRED = 'HITL_REQUIRED',
  /** Platform web search runs only inside a session (act), where its mode and capability are known. */
  WEB_SEARCH_REQUIRES_SESSION = 'WEB_SEARCH_REQUIRES_SESSION',
}
