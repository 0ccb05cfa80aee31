import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ToolCallJournalRepository } from '../journal/tool-call-journal.repository';
import type { JournalEntry } from '../journal/journal.types';

/**
 * Full tool results: a bounded in-memory LRU (bounded by bytes, RESULT_STORE_MAX_BYTES) in front of the
 * journal, which holds every result durably. Reuse inside one process is served from memory.
 */
@Injectable()
export class ToolResultStore {
  private readonly cache: LRUCache<string, string>;

  constructor(
    private readonly journal: ToolCallJournalRepository,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.cache = new LRUCache<string, string>({
      maxSize: Math.max(1, config.resultStoreMaxBytes),
      sizeCalculation: (value, key) => Math.max(1, (value.length + key.length) * 2),
    });
  }

  remember(tenantId: string, sessionId: string, toolCallId: string, content: string): void {
    const key = keyOf(tenantId, sessionId, toolCallId);
    if ((content.length + key.length) * 2 <= this.cache.maxSize) this.cache.set(key, content);
  }

  /** The whole result of a finished journal entry. */
  async contentOf(entry: JournalEntry): Promise<string> {
    const key = keyOf(entry.tenantId, entry.sessionId, entry.toolCallId);
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const content = await this.journal.readContent(entry);
    this.remember(entry.tenantId, entry.sessionId, entry.toolCallId, content);
    return content;
  }
}

function keyOf(tenantId: string, sessionId: string, toolCallId: string): string {
  return `${tenantId}\u0000${sessionId}\u0000${toolCallId}`;
}
