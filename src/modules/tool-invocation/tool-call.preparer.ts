import { Injectable } from '@nestjs/common';
import { ToolSchemaCompiler } from '@app/modules/tool-registry/tool-schema.compiler';
import type { ToolDescriptor, ToolRequirement } from '@app/modules/tool-registry/tool-registry.types';
import { ToolVisibilityService } from '@app/modules/agent-config/visibility/tool-visibility.service';
import type { AgentEntity } from '@app/modules/agent-config/agent.entity';
import type { WebSearchMode } from '@app/modules/agent-config/agent-config.types';
import { RiskDetector } from '@app/modules/risk/risk-detector';
import { approvalNeed, ApprovalNeed } from '@app/modules/hitl/approval/approval-policy';
import { FAILURE_PREFIX } from '@app/modules/executors/call-path/tool-call.types';
import { parseToolArguments } from './tool-arguments.parser';
import { argumentsSizeProblem } from './tool-arguments.size';
import type { ModelFormat } from '@app/modules/agent-config/formats/model-formats';

export interface CallRequest {
  tenantId: string;
  /** The agent the call is made for: its bindings and policies decide (never optional: see decideForCall). */
  agentId: string;
  userId: string;
  permissions: readonly string[];
  capabilities?: readonly ToolRequirement[];
  webSearchMode?: WebSearchMode;
  toolName: string;
  rawArguments: unknown;
  /** The format of the tool specs the model was given, when the caller said (see ToolSchemaCompiler.reviveArguments). */
  format?: ModelFormat;
  /**
   * The arguments are those a journal entry stored for the call's first run, already read as its format reads them
   * (a Gemini map unwrapped): they are checked as they are, never read again (a map could be unwrapped twice).
   */
  storedArguments?: boolean;
  /** The request's arrival (performance.now()): configuration confirmed since then is fresh enough. */
  freshSince?: number;
}

/** A call that may run (possibly after approval). */
export interface ReadyCall {
  kind: 'ready';
  tool: ToolDescriptor;
  args: Record<string, unknown>;
  agent: AgentEntity | null;
  approval: ApprovalNeed | null;
  webSearch: { mode: WebSearchMode; tenantCapability: boolean };
}

/** A call refused before running: the content is what the model reads (attempts 0). */
export interface RefusedCall {
  kind: 'refused';
  tool: ToolDescriptor | null;
  args: unknown;
  content: string;
  reason: 'UNKNOWN_TOOL' | 'NOT_VISIBLE' | 'BAD_ARGUMENTS';
}

/**
 * Everything that happens to a proposed call before it may run, shared by `act` and executeDirect:
 * resolve the tool by name in the tenant's scope, re-take the visibility decision against fresh state,
 * parse and validate the arguments against the tool's schema, and decide whether a human must approve.
 */
@Injectable()
export class ToolCallPreparer {
  constructor(
    private readonly visibility: ToolVisibilityService,
    private readonly schemas: ToolSchemaCompiler,
    private readonly risk: RiskDetector,
  ) {}

  async prepare(req: CallRequest): Promise<ReadyCall | RefusedCall> {
    const { tool, decision, agent, webSearch } = await this.visibility.decideForCall(
      {
        tenantId: req.tenantId,
        agentId: req.agentId,
        permissions: req.permissions,
        capabilities: req.capabilities,
        webSearchMode: req.webSearchMode,
        freshSince: req.freshSince,
      },
      req.toolName,
    );
    if (!tool)
      return refused(
        null,
        req.rawArguments,
        'UNKNOWN_TOOL',
        `tool ${req.toolName} does not exist; call only the tools you were given`,
      );
    if (!decision.visible) {
      return refused(
        tool,
        req.rawArguments,
        'NOT_VISIBLE',
        `tool ${tool.name} is not available to this agent now (${decision.layer}: ${decision.reason})`,
      );
    }
    const parsed = parseToolArguments(req.rawArguments);
    if (!parsed.ok) return refused(tool, req.rawArguments, 'BAD_ARGUMENTS', `${parsed.problem}; no call was made`);
    const tooLarge = argumentsSizeProblem(req.rawArguments, parsed.value);
    // The refusal keeps a note instead of the arguments: nothing will run them, and storing megabytes helps no one.
    if (tooLarge) return refused(tool, { $omitted: tooLarge }, 'BAD_ARGUMENTS', `${tooLarge}; no call was made`);
    const args = req.storedArguments ? parsed.value : this.schemas.reviveArguments(tool, parsed.value, req.format);
    const violations = this.schemas.validateArguments(tool, args);
    if (violations.length) {
      return refused(
        tool,
        parsed.value,
        'BAD_ARGUMENTS',
        `arguments do not match the schema of ${tool.name}: ${violations.join('; ')}. Fix them and call again; no call was made`,
      );
    }
    const risky = (await this.risk.evaluateCallArguments(args, tool.parameters)).rules;
    return {
      kind: 'ready',
      tool,
      args,
      agent: agent ?? null,
      approval: approvalNeed(tool, agent?.sideEffectPolicy ?? null, risky),
      webSearch: webSearch ?? { mode: 'DISABLED', tenantCapability: false },
    };
  }
}

/** A call refused before running: `text` after the failure prefix every refusal the model reads carries. */
export function refused(
  tool: ToolDescriptor | null,
  args: unknown,
  reason: RefusedCall['reason'],
  text: string,
): RefusedCall {
  return { kind: 'refused', tool, args, reason, content: `${FAILURE_PREFIX}${text}` };
}
