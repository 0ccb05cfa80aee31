/** Error codes of session workspaces, the runtime file API and artifacts. */
export enum WorkspaceErrorCode {
  /** A workspace path is absolute, climbs with `..`, holds a NUL or a backslash, or leads out of the workspace. */
  WORKSPACE_PATH_INVALID = 'WORKSPACE_PATH_INVALID',
  /** A write would pass WORKSPACE_MAX_BYTES, WORKSPACE_MAX_FILES or WORKSPACE_MAX_FILE_BYTES. */
  WORKSPACE_QUOTA_EXCEEDED = 'WORKSPACE_QUOTA_EXCEEDED',
  /** The session has no workspace: it was created without FILE_ROOM or SANDBOX, or it is closed. */
  WORKSPACE_UNAVAILABLE = 'WORKSPACE_UNAVAILABLE',
}
