import { Injectable } from '@nestjs/common';
import { McpServiceRepository } from './mcp-service.repository';
import { toMcpServiceRecord } from './mcp-service.mapper';
import type { McpServiceRecord } from './mcp-service.types';

/**
 * MCP services by id for the call path, cached: where a service is (kind, Nacos name, group, namespace,
 * path, transport) never changes after it is registered, so a call costs no query once the service is known.
 */
@Injectable()
export class McpServiceDirectory {
  private readonly byId = new Map<string, Promise<McpServiceRecord | null>>();

  constructor(private readonly services: McpServiceRepository) {}

  /** Forgets a service changed or deleted on this instance. */
  forget(id: string): void {
    this.byId.delete(id);
  }

  /** Forgets every service not in `ids` (deleted, possibly on another instance, where {@link forget} did not run). */
  retainOnly(ids: ReadonlySet<string>): void {
    for (const id of this.byId.keys()) if (!ids.has(id)) this.byId.delete(id);
  }

  get(id: string): Promise<McpServiceRecord | null> {
    let found = this.byId.get(id);
    if (!found) {
      found = this.services.findById(id).then((row) => (row ? toMcpServiceRecord(row) : null));
      this.byId.set(id, found);
      // A miss or a failed read is not remembered: the service may be created (on another instance) later.
      found.then(
        (r) => r ?? this.byId.delete(id),
        () => this.byId.delete(id),
      );
    }
    return found;
  }
}
