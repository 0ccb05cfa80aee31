import type { FastifyReply } from 'fastify';
import type { ToolVisibilityService } from './visibility/tool-visibility.service';
import type { ToolSpecsRequestDto } from './tool-specs.dto';

/**
 * Answers a tool-specs request of `tenantId` (the runtime's key, or the agent's tenant for an admin preview).
 * Sent pre-serialized: the per-tool JSON is cached, so a large answer is joined, not re-stringified.
 */
export async function replyWithToolSpecs(
  visibility: ToolVisibilityService,
  tenantId: string,
  agentId: string,
  dto: ToolSpecsRequestDto,
  res: FastifyReply,
): Promise<void> {
  const json = await visibility.toolSpecsJson(
    {
      tenantId,
      agentId,
      permissions: dto.permissions,
      capabilities: dto.capabilities,
      webSearchMode: dto.webSearchMode,
    },
    dto.format,
    dto.explain,
    dto.strict,
  );
  void res.code(200).type('application/json; charset=utf-8').send(json);
}
