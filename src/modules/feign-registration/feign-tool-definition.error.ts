/** Start-up stops with this error when a `@Tool` / `@FeignTool` declaration is unusable; it names each method. */
export class FeignToolDefinitionError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid @Tool/@FeignTool declarations:\n  - ${problems.join('\n  - ')}`);
    this.name = 'FeignToolDefinitionError';
  }
}
