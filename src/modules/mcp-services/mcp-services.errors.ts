/** Error codes of the MCP services admin API and the sync. */
export enum McpServicesErrorCode {
  /** Another MCP service in the same scope (the tenant, or platform-wide) already has this name. */
  MCP_SERVICE_NAME_TAKEN = 'MCP_SERVICE_NAME_TAKEN',
  /** A NACOS service was registered while Nacos discovery is off (NACOS_SERVER_ADDR is empty). */
  NACOS_NOT_CONFIGURED = 'NACOS_NOT_CONFIGURED',
  /** No instance of the service answered tools/list (none healthy in Nacos, or none reachable); nothing was changed. */
  MCP_SERVICE_UNREACHABLE = 'MCP_SERVICE_UNREACHABLE',
}
