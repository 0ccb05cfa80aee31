import { Injectable } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ToolVisibilityService } from './visibility/tool-visibility.service';
import type { ToolSpecsBody } from './tool-specs-body.schema';
import { SessionRemindersRegistry } from './reminders/session-reminders.registry';
import { ToolSpecsSessionReader } from './reminders/tool-specs-session.reader';

/** Answers tool-specs requests, for the runtime and the admin preview alike. */
@Injectable()
export class ToolSpecsReply {
  constructor(
    private readonly visibility: ToolVisibilityService,
    private readonly sessions: ToolSpecsSessionReader,
    private readonly reminders: SessionRemindersRegistry,
  ) {}

  /**
   * Answers a tool-specs request of `tenantId` (the runtime's key, or the agent's tenant for an admin preview).
   * With `sessionId`, the permissions and capabilities are the session's and the answer adds `reminders`.
   * Sent pre-serialized: the per-tool JSON is cached, so a large answer is joined, not re-stringified.
   */
  async send(tenantId: string, agentId: string, dto: ToolSpecsBody, res: FastifyReply): Promise<void> {
    const session = dto.sessionId ? await this.sessions.find(tenantId, agentId, dto.sessionId) : null;
    const json = await this.visibility.toolSpecsJson(
      {
        tenantId,
        agentId,
        permissions: session ? session.permissions : dto.permissions,
        capabilities: session ? session.capabilities : dto.capabilities,
        webSearchMode: dto.webSearchMode,
      },
      dto.format,
      dto.explain,
      dto.strict,
    );
    const body = session
      ? `${json.slice(0, -1)},"reminders":${JSON.stringify(await this.reminders.remindersFor(session))}}`
      : json;
    void res.code(200).type('application/json; charset=utf-8').send(body);
  }
}
