import { Injectable } from '@nestjs/common';
import { nameKeyOf } from '@app/common/name-key';
import type { LocalToolRegistration } from './feign-tool.types';

/**
 * The tools the explorer found in this process, by endpoint ("Provider.method", as stored in `ai_tool`)
 * and by name (in any case: names differing only in case are one name, as in `ai_tool`). Filled once during module init; read by the reconciler, the drift report and the executors.
 */
@Injectable()
export class LocalToolHandlerRegistry {
  private readonly byEndpoint = new Map<string, LocalToolRegistration>();
  private readonly byName = new Map<string, LocalToolRegistration>();

  /** Replaces the whole set (the explorer has already rejected duplicates). */
  replaceAll(registrations: LocalToolRegistration[]): void {
    this.byEndpoint.clear();
    this.byName.clear();
    for (const r of registrations) {
      this.byEndpoint.set(r.definition.endpoint, r);
      this.byName.set(nameKeyOf(r.definition.name), r);
    }
  }

  findByEndpoint(endpoint: string): LocalToolRegistration | undefined {
    return this.byEndpoint.get(endpoint);
  }

  findByName(name: string): LocalToolRegistration | undefined {
    return this.byName.get(nameKeyOf(name));
  }

  /** Every scanned tool, by name. */
  all(): LocalToolRegistration[] {
    return [...this.byName.values()].sort((a, b) => a.definition.name.localeCompare(b.definition.name));
  }
}
