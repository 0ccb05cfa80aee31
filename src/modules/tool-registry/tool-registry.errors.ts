/** Error codes of the tool registry. */
export enum ToolRegistryErrorCode {
  /** Another tool in the same scope (the tenant, or platform-wide) already has this name. */
  TOOL_NAME_TAKEN = 'TOOL_NAME_TAKEN',
  /** The tool is managed by the platform (built-in) and this change is not allowed. */
  TOOL_NOT_EDITABLE = 'TOOL_NOT_EDITABLE',
}
