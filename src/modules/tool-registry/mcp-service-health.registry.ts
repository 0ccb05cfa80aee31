import { Injectable } from '@nestjs/common';

export interface DependencyHealth {
  healthy: boolean;
  reason?: string;
  checkedAt: number;
}

/**
 * What this instance knows about the health of the MCP services tools depend on, keyed by MCP service id
 * (or, for tools without one, their endpoint). The MCP sync and its scheduled check write it; the
 * visibility pipeline's DEPENDENCIES layer reads it. Unknown means "no evidence of trouble".
 */
@Injectable()
export class McpServiceHealthRegistry {
  private readonly health = new Map<string, DependencyHealth>();

  report(key: string, healthy: boolean, reason?: string): void {
    this.health.set(key, { healthy, reason, checkedAt: Date.now() });
  }

  statusOf(key: string): DependencyHealth | undefined {
    return this.health.get(key);
  }

  forget(key: string): void {
    this.health.delete(key);
  }

  /** Forgets every key not in `keys` (services deleted, possibly on another instance). */
  retainOnly(keys: ReadonlySet<string>): void {
    for (const key of this.health.keys()) if (!keys.has(key)) this.health.delete(key);
  }
}
