import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { ToolCallPathService } from '@app/modules/executors/call-path/tool-call-path.service';
import { ToolCallLogService } from '@app/modules/executors/tool-call-log/tool-call-log.service';
import { isPlatformWebSearch } from '@app/modules/agent-config/visibility/visibility-layers';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { redactQuotingText, redactSnippets } from '@app/common/redaction';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ToolCallPreparer } from './tool-call.preparer';
import { ToolInvocationErrorCode } from './tool-invocation.errors';
import { ExecuteDirectResponseDto } from './execute-direct.dto';
import type { ExecuteDirectBody } from './execute-direct-body.schema';
import type { LogFields } from '@app/common/logging/log-context';

/**
 * executeDirect: the light entry without a session. Same checks as `act` (visibility at call time, schema),
 * but no journal and no human: calls that would need approval and platform web search are refused with 409.
 */
@Injectable()
export class ExecuteDirectService {
  constructor(
    private readonly preparer: ToolCallPreparer,
    private readonly callPath: ToolCallPathService,
    private readonly log: ToolCallLogService,
  ) {}

  /**
   * `signal`: the client's (aborted when it disconnects); the call in flight is cancelled with it.
   * `log`: the request's log fields, handed to the call's lines.
   */
  async execute(
    auth: AuthContext,
    toolName: string,
    dto: ExecuteDirectBody,
    signal?: AbortSignal,
    log?: LogFields,
  ): Promise<ExecuteDirectResponseDto> {
    const tenantId = auth.tenantId!;
    const toolCallId = dto.toolCallId ?? `direct-${randomUUID()}`;
    const prepared = await this.preparer.prepare({
      tenantId,
      agentId: dto.agentId,
      userId: dto.userId,
      permissions: dto.permissions,
      capabilities: dto.capabilities,
      toolName,
      rawArguments: dto.arguments,
      format: dto.format,
    });
    if (prepared.tool && isPlatformWebSearch(prepared.tool)) {
      throw new DomainError(
        ToolInvocationErrorCode.WEB_SEARCH_REQUIRES_SESSION,
        'Platform web search runs only inside a session: create one with POST /api/v1/sessions and submit the call with POST /api/v1/sessions/{id}/act.',
      );
    }
    if (prepared.kind === 'refused') {
      if (prepared.reason === 'UNKNOWN_TOOL') {
        throw new DomainError(
          CommonErrorCode.NOT_FOUND,
          `No tool named ${toolName} in your tenant or platform-wide; use a name from the agent's tool specs (POST /api/v1/agents/{agentId}/tool-specs).`,
          { toolName },
        );
      }
      this.log.record({
        tenantId,
        agentId: dto.agentId,
        userId: dto.userId,
        toolCallId,
        toolId: prepared.tool?.id ?? null,
        toolName,
        status: 'FAILED',
        entry: 'DIRECT',
        arguments: prepared.args,
        redactFields: prepared.tool?.result?.redactFields,
        attempts: 0,
        durationMs: 0,
        errorClass: prepared.reason,
        content: prepared.content,
      });
      return {
        status: 'FAILED',
        content: prepared.content,
        isError: true,
        attempts: 0,
        durationMs: 0,
        toolCallId,
        errorClass: prepared.reason,
      };
    }
    if (prepared.approval) {
      const { reason, rules, trigger } = prepared.approval;
      const fields = prepared.tool.result?.redactFields;
      throw new DomainError(
        ToolInvocationErrorCode.HITL_REQUIRED,
        `This call needs human approval (${redactQuotingText(reason, rules, fields)}); executeDirect cannot ask for one. Submit it through a session (POST /api/v1/sessions/{id}/act) instead. Nothing was run.`,
        { trigger, rules: redactSnippets(rules, fields) },
      );
    }
    const result = await this.callPath.call(
      prepared.tool,
      prepared.args,
      {
        tenantId,
        userId: dto.userId,
        agentId: dto.agentId,
        sessionId: null,
        toolCallId,
        entry: 'DIRECT',
        log,
      },
      signal,
    );
    return {
      status: result.status,
      content: result.content,
      isError: result.isError,
      attempts: result.attempts,
      durationMs: result.durationMs,
      toolCallId,
      errorClass: result.errorClass,
    };
  }
}
