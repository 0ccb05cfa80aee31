/** Error codes of the command sandbox. */
export enum SandboxErrorCode {
  /**
   * Commands cannot run: SANDBOX_DRIVER=none, bubblewrap is missing, or it failed to start a sandbox. Never
   * answered by running the command unsandboxed; the operator installs bubblewrap or sets SANDBOX_DRIVER.
   */
  SANDBOX_UNAVAILABLE = 'SANDBOX_UNAVAILABLE',
}
