import { Injectable } from '@nestjs/common';
import { HotSql } from '@app/database/hot-sql';
import { ConfigVersionService, VERSION_SELECT } from '@app/database/config-version.service';
import { AgentSessionRepository } from '../sessions/agent-session.repository';
import type { AgentSessionEntity } from '../sessions/agent-session.entity';
import { ToolCallJournalRepository } from '../journal/tool-call-journal.repository';
import type { JournalEntry } from '../journal/journal.types';

/** What an act starts from. */
export interface ActState {
  /** Null when no session has this id (in any tenant: the caller checks the tenant). */
  session: AgentSessionEntity | null;
  /** The journal entries of the submitted toolCallIds, in the caller's tenant, by toolCallId. */
  journaled: Map<string, JournalEntry>;
  /** The tenant's configuration version (`<global>:<tenant>`), read in the same statement. */
  configVersion: string;
}

/**
 * The one read an act makes before its calls: the session, the journal entries of the submitted toolCallIds and
 * the tenant's configuration version, in ONE statement (one round trip on MySQL instead of three). The columns
 * come from the session and journal tables' definitions; the version from ConfigVersionService.
 */
@Injectable()
export class ActStateQuery {
  constructor(
    private readonly sql: HotSql,
    private readonly sessions: AgentSessionRepository,
    private readonly journal: ToolCallJournalRepository,
    private readonly configVersion: ConfigVersionService,
  ) {}

  async read(tenantId: string, sessionId: string, toolCallIds: readonly string[]): Promise<ActState> {
    // The journal is scoped by the caller's tenant, so a session of another tenant reveals no entry.
    const calls = toolCallIds.length ? `j.tool_call_id IN (${toolCallIds.map(() => '?').join(', ')})` : '1 = 0';
    const rows = await this.sql.all(
      `SELECT ${this.sessions.table.aliasedList('s', 's__')}, ${this.journal.table.aliasedList('j', 'j__')}, ${VERSION_SELECT}
         FROM agent_session s
         LEFT JOIN tool_call_journal j ON j.tenant_id = ? AND j.session_id = s.id AND ${calls}
        WHERE s.id = ?`,
      [tenantId, tenantId, ...toolCallIds, sessionId],
    );
    const journaled = new Map<string, JournalEntry>();
    for (const row of rows) {
      if (row.j__tool_call_id === null || row.j__tool_call_id === undefined) continue;
      const entry = this.journal.toEntry(row, 'j__');
      journaled.set(entry.toolCallId, entry);
    }
    if (rows.length === 0) {
      return { session: null, journaled, configVersion: await this.configVersion.read(tenantId) };
    }
    return {
      session: this.sessions.toEntity(rows[0], 's__'),
      journaled,
      configVersion: this.configVersion.observe(tenantId, rows[0]),
    };
  }
}
