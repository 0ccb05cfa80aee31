import { SessionEventsStore } from '@app/modules/session-events/session-events.store';
import type { SessionEventType } from '@app/modules/session-events/session-event.types';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ToolCallPreparer, ReadyCall, RefusedCall, refused } from '@app/modules/tool-invocation/tool-call.preparer';
import { ToolCallPathService } from '@app/modules/executors/call-path/tool-call-path.service';
import { ToolCallLogService } from '@app/modules/executors/tool-call-log/tool-call-log.service';
import type { SideEffectLevel, ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { ToolErrorClass } from '@app/modules/executors/tool-error-class';
import { DomainError } from '@app/common/errors/domain-error';
import type { HotStatements } from '@app/database/hot-sql';
import { ToolCallJournalRepository, NewJournalEntry } from '../journal/tool-call-journal.repository';
import { JournalLeaseRenewer } from '../journal/journal-lease.renewer';
import { JournalOutcomeRecorder } from '../journal/journal-outcome.recorder';
import { canonicalJson } from '@app/common/canonical-json';
import { fieldLine } from '@app/common/logging/log-context';
import type { JournalClaim, JournalEntry, JournalKey } from '../journal/journal.types';
import { ToolResultStore } from '../results/tool-result.store';
import { inlineLimitOf, inlineResult } from '../results/tool-result.view';
import { LoopActingErrorCode } from '../loop-acting.errors';
import type { SubmittedCall } from '../sessions/session.types';
import type { ActResult } from './act.types';
import type { ApprovalGrant, BatchContext, CallStep } from './acting.types';
import { FaultInjector } from './fault-injector';
import { AgentSessionRepository } from '../sessions/agent-session.repository';
import {
  fingerprintOf,
  unknownOutcomeInterrupt,
  approvalInterrupt,
  toolOfEntry,
  runsAgainAfterCrash,
} from './call-interrupts';
import { ToolRegistryService } from '@app/modules/tool-registry/tool-registry.service';
import { BuiltinToolCatalog } from '@app/modules/tool-registry/builtin-tool.catalog';

/** What a result entry is made of. */
export interface ResultFacts {
  toolCallId: string;
  toolName: string;
  status: ActResult['status'];
  content: string;
  isError: boolean;
  reused: boolean;
  attempts: number;
  durationMs: number;
  inlineLimit: number;
  errorClass: string | null;
}

/**
 * One tool call of a batch through the journal: reuse a finished entry, recover a dead owner's entry,
 * or check, claim (STARTED), run and record it. Never runs a side-effecting call whose outcome is unknown (unless
 * running it again is provably harmless: see runsAgainAfterCrash).
 */
@Injectable()
export class CallRunner {
  private readonly logger = new Logger(CallRunner.name);

  constructor(
    private readonly preparer: ToolCallPreparer,
    private readonly callPath: ToolCallPathService,
    private readonly journal: ToolCallJournalRepository,
    private readonly leases: JournalLeaseRenewer,
    private readonly outcomes: JournalOutcomeRecorder,
    private readonly results: ToolResultStore,
    private readonly log: ToolCallLogService,
    private readonly faults: FaultInjector,
    private readonly sessions: AgentSessionRepository,
    private readonly events: SessionEventsStore,
    private readonly tools: ToolRegistryService,
    private readonly builtins: BuiltinToolCatalog,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async run(
    ctx: BatchContext,
    call: SubmittedCall,
    existing: JournalEntry | undefined,
    grant: ApprovalGrant | null,
  ): Promise<CallStep> {
    if (existing) return this.fromExisting(ctx, call, existing, grant);
    const prepared = await this.preparer.prepare({
      tenantId: ctx.session.tenantId,
      agentId: ctx.session.agentId,
      userId: ctx.session.userId,
      permissions: ctx.session.permissions,
      capabilities: ctx.session.capabilities,
      toolName: call.name,
      rawArguments: call.arguments,
      format: call.format,
      storedArguments: call.stored !== undefined,
      freshSince: ctx.freshSince,
    });
    const key = this.keyOf(ctx, call);
    const fingerprint = fingerprintOf(call);
    if (prepared.kind === 'refused') {
      const entry = this.newEntry(ctx, call, fingerprint, prepared.tool, prepared.args);
      const inserted = await this.journal.insertRefused(entry, Date.now(), prepared.content, prepared.reason);
      if (inserted === 'SESSION_CLOSED') return { kind: 'sessionClosed' };
      if (inserted === 'TAKEN') return this.afterLostRace(ctx, call, grant);
      this.toolEvent(ctx, 'tool.failed', { toolCallId: call.id, tool: call.name, errorClass: prepared.reason });
      this.log.record({
        tenantId: ctx.session.tenantId,
        sessionId: ctx.session.id,
        agentId: ctx.session.agentId,
        userId: ctx.session.userId,
        toolCallId: call.id,
        toolId: prepared.tool?.id ?? null,
        toolName: call.name,
        status: 'FAILED',
        entry: ctx.entry,
        arguments: prepared.args,
        redactFields: prepared.tool?.result?.redactFields,
        attempts: 0,
        durationMs: 0,
        errorClass: prepared.reason,
        content: prepared.content,
      });
      return { kind: 'result', result: this.refusalView(call.id, call.name, prepared, entry.inlineLimit) };
    }
    if (prepared.approval && !grantCovers(grant, call.id, fingerprint, prepared.tool.id))
      return { kind: 'interrupt', interrupt: approvalInterrupt(call, prepared, fingerprint) };
    this.faults.reach('before-started', call.name);
    const entry = this.newEntry(ctx, call, fingerprint, prepared.tool, prepared.args);
    const iteration = ctx.iterationToRecord;
    const recordIteration =
      iteration === undefined
        ? undefined
        : (tx: HotStatements) => this.sessions.raiseIteration(ctx.session.id, iteration, tx);
    const claimed = await this.journal.claim(entry, Date.now(), recordIteration);
    if (claimed === 'SESSION_CLOSED') return { kind: 'sessionClosed' };
    if (claimed === 'TAKEN') return this.afterLostRace(ctx, call, grant);
    ctx.iterationToRecord = undefined;
    this.toolEvent(ctx, 'tool.started', { toolCallId: call.id, tool: call.name, iteration: ctx.iteration });
    this.faults.reach('after-started', call.name);
    return {
      kind: 'result',
      result: await this.execute(ctx, { ...key, owner: entry.owner }, prepared, entry.inlineLimit),
    };
  }

  /** A toolCallId seen before: reuse, recover, or refuse. */
  private async fromExisting(
    ctx: BatchContext,
    call: SubmittedCall,
    entry: JournalEntry,
    grant: ApprovalGrant | null,
  ): Promise<CallStep> {
    if (entry.fingerprint !== fingerprintOf(call)) throw conflict(call, entry);
    if (entry.state !== 'STARTED') return { kind: 'result', result: await this.reused(entry) };
    if (entry.leaseExpiresAt > Date.now()) throw inProgress(call);
    // The owner died: its lease expired without a finish.
    const resolved = await this.preparer.prepare({
      tenantId: ctx.session.tenantId,
      agentId: ctx.session.agentId,
      userId: ctx.session.userId,
      permissions: ctx.session.permissions,
      capabilities: ctx.session.capabilities,
      toolName: entry.toolName,
      rawArguments: JSON.parse(entry.argumentsJson),
      storedArguments: true,
      freshSince: ctx.freshSince,
    });
    // A READ_ONLY call (or a built-in keyed by the toolCallId) runs again on its own: only on the tool it was made to
    // (a RETRY's grant checks that itself).
    const runsAgain = runsAgainAfterCrash(entry, resolved.kind === 'ready' ? resolved.tool : null, this.builtins);
    const prepared = runsAgain ? sameToolAsEntry(entry, resolved) : resolved;
    // A decision lets through the tool the human decided on, not another that took its name since (that one asks again).
    const decided = grantCovers(grant, call.id, entry.fingerprint, prepared.kind === 'ready' ? prepared.tool.id : null);
    const retryApproved = decided && grant?.mode === 'RETRY';
    if (!runsAgain && !retryApproved) {
      // The reviewer sees the arguments with the redactFields of the tool the entry was claimed for.
      const tool = await toolOfEntry(entry, this.tools, prepared.tool);
      return {
        kind: 'interrupt',
        interrupt: unknownOutcomeInterrupt(call, entry, tool?.result?.redactFields),
      };
    }
    // An approval the human gave this call (APPROVE, or RETRY) holds for the run again that a crash made necessary.
    if (prepared.kind === 'ready' && prepared.approval && !decided) {
      return { kind: 'interrupt', interrupt: approvalInterrupt(call, prepared, entry.fingerprint) };
    }
    const claim: JournalClaim = { ...this.keyOf(ctx, call), owner: this.leases.newClaim() };
    const taken = await this.journal.takeOver(claim, entry, claim.owner, this.leases.leaseUntil(), ctx.iteration);
    if (taken === 'SESSION_CLOSED') return { kind: 'sessionClosed' };
    if (taken === 'TAKEN') return this.afterLostRace(ctx, call, grant);
    this.toolEvent(ctx, 'tool.started', {
      toolCallId: call.id,
      tool: entry.toolName,
      iteration: ctx.iteration,
      recovered: true,
    });
    if (prepared.kind === 'refused') {
      // The tool is no longer callable: record the refusal as the outcome of the recovered entry.
      await this.journal.finish(
        claim,
        claim.owner,
        {
          state: 'FAILED',
          resultStatus: 'FAILED',
          attempts: 0,
          durationMs: 0,
          isError: true,
          errorClass: prepared.reason,
          content: prepared.content,
        },
        Date.now(),
      );
      this.toolEvent(ctx, 'tool.failed', { toolCallId: call.id, tool: entry.toolName, errorClass: prepared.reason });
      return { kind: 'result', result: this.refusalView(call.id, entry.toolName, prepared, entry.inlineLimit) };
    }
    return { kind: 'result', result: await this.execute(ctx, claim, prepared, entry.inlineLimit) };
  }

  /** Another submission inserted the same toolCallId first: answer from its entry. */
  private async afterLostRace(ctx: BatchContext, call: SubmittedCall, grant: ApprovalGrant | null): Promise<CallStep> {
    const entry = await this.journal.find(this.keyOf(ctx, call));
    if (!entry) throw inProgress(call);
    if (entry.state === 'STARTED' && entry.leaseExpiresAt > Date.now()) throw inProgress(call);
    return this.fromExisting(ctx, call, entry, grant);
  }

  private async execute(
    ctx: BatchContext,
    key: JournalClaim,
    prepared: ReadyCall,
    inlineLimit: number,
  ): Promise<ActResult> {
    const s = ctx.session;
    // A side-effecting call is never cut off by its client going away: its outcome would become unknown.
    const clientSignal = CANCELLABLE_WHEN_CLIENT_GOES.has(prepared.tool.sideEffect) ? ctx.signal : undefined;
    const result = await this.leases.hold(key, async () => {
      const timer = this.faults.armDuringCall(prepared.tool.name);
      try {
        return await this.callPath.call(
          prepared.tool,
          prepared.args,
          {
            tenantId: s.tenantId,
            userId: s.userId,
            agentId: s.agentId,
            sessionId: s.id,
            toolCallId: key.toolCallId,
            entry: ctx.entry,
            runId: ctx.runId,
            webSearch: prepared.webSearch,
            freshSince: ctx.freshSince,
            log: ctx.log,
          },
          clientSignal,
        );
      } finally {
        if (timer) clearTimeout(timer);
      }
    });
    if (clientSignal?.aborted && result.errorClass === ToolErrorClass.CANCELLED) {
      // Nothing to keep: the client is gone and running it again is harmless. The tool log has the CANCELLED row.
      await this.journal.release(key, key.owner);
      return this.view({
        ...result,
        toolCallId: key.toolCallId,
        toolName: prepared.tool.name,
        reused: false,
        inlineLimit,
      });
    }
    this.faults.reach('after-call', prepared.tool.name);
    const finished = await this.outcomes.record(key, { ...result, state: result.status, resultStatus: result.status });
    if (!finished)
      this.logger.error(
        fieldLine(
          `Journal entry ${key.toolCallId} was no longer ours when ${prepared.tool.name} finished; its outcome stays with the new owner.`,
          ctx.log,
          { tenantId: s.tenantId, sessionId: s.id, toolCallId: key.toolCallId, tool: prepared.tool.name },
        ),
      );
    // Only the outcome the journal keeps is told on the session's events (the new owner tells its own).
    else
      this.toolEvent(ctx, result.status === 'COMPLETED' ? 'tool.completed' : 'tool.failed', {
        toolCallId: key.toolCallId,
        tool: prepared.tool.name,
        status: result.status,
        attempts: result.attempts,
        durationMs: result.durationMs,
        ...(result.errorClass ? { errorClass: result.errorClass } : {}),
      });
    this.faults.reach('after-completed', prepared.tool.name);
    // Only the outcome the journal holds is served again: an entry finished by its new owner keeps that owner's result.
    if (finished) this.results.remember(key.tenantId, key.sessionId, key.toolCallId, result.content);
    return this.view({
      ...result,
      toolCallId: key.toolCallId,
      toolName: prepared.tool.name,
      reused: false,
      inlineLimit,
    });
  }

  /** A finished entry's stored result (`reused: true`). */
  async reused(entry: JournalEntry): Promise<ActResult> {
    const content = await this.results.contentOf(entry);
    const status = (entry.resultStatus ?? entry.state) as ActResult['status'];
    return this.view({
      toolCallId: entry.toolCallId,
      toolName: entry.toolName,
      status,
      content,
      isError: entry.isError,
      reused: true,
      attempts: entry.attempts,
      durationMs: entry.durationMs ?? 0,
      inlineLimit: entry.inlineLimit,
      errorClass: entry.errorClass,
    });
  }

  /** The result entry the runtime reads: content cut at the inline limit in force when the call was made. */
  view(r: ResultFacts): ActResult {
    const inline = inlineResult(r.content, r.inlineLimit, r.toolCallId);
    return {
      toolCallId: r.toolCallId,
      toolName: r.toolName,
      status: r.status,
      content: inline.content,
      isError: r.isError,
      reused: r.reused,
      attempts: r.attempts,
      durationMs: r.durationMs,
      totalChars: inline.totalChars,
      truncated: inline.truncated,
      errorClass: r.errorClass,
    };
  }

  /** The result of a call refused before running (attempts 0). */
  private refusalView(toolCallId: string, toolName: string, refusal: RefusedCall, inlineLimit: number): ActResult {
    return this.view({
      toolCallId,
      toolName,
      status: 'FAILED',
      content: refusal.content,
      isError: true,
      reused: false,
      attempts: 0,
      durationMs: 0,
      inlineLimit,
      errorClass: refusal.reason,
    });
  }

  inlineLimitOf(tool: ToolDescriptor | null): number {
    return inlineLimitOf(tool, this.config.resultDefaultMaxInlineChars);
  }

  private newEntry(
    ctx: BatchContext,
    call: SubmittedCall,
    fingerprint: string,
    tool: ToolDescriptor | null,
    args: unknown,
  ): NewJournalEntry {
    return {
      ...this.keyOf(ctx, call),
      toolName: call.name.slice(0, 64),
      toolId: tool?.id ?? null,
      fingerprint,
      argumentsJson: canonicalJson(args),
      sideEffect: tool?.sideEffect ?? 'SIDE_EFFECT',
      iteration: ctx.iteration,
      owner: this.leases.newClaim(),
      leaseExpiresAt: this.leases.leaseUntil(),
      inlineLimit: this.inlineLimitOf(tool),
    };
  }

  /** A tool event of the session, written behind the call (the journal already holds the call durably). */
  private toolEvent(ctx: BatchContext, type: SessionEventType, data: Record<string, unknown>): void {
    this.events.record({ tenantId: ctx.session.tenantId, sessionId: ctx.session.id, type, data });
  }

  private keyOf(ctx: BatchContext, call: SubmittedCall): JournalKey {
    return { tenantId: ctx.session.tenantId, sessionId: ctx.session.id, toolCallId: call.id };
  }
}

/**
 * The call as prepared, unless the entry's name now resolves to another tool than the one the call was made to (it
 * was renamed, and another took its name): then it is refused, never run on that other tool in its place.
 */
function sameToolAsEntry(entry: JournalEntry, prepared: ReadyCall | RefusedCall): ReadyCall | RefusedCall {
  if (prepared.kind !== 'ready' || entry.toolId === null || prepared.tool.id === entry.toolId) return prepared;
  return refused(
    null,
    prepared.args,
    'UNKNOWN_TOOL',
    `the tool this call was made to is no longer named ${entry.toolName}: it was renamed or replaced since the call started, so it is not run again. Call the tool by its current name with a new toolCallId.`,
  );
}

/**
 * Whether a human's decision lets this call through: the same toolCallId and fingerprint, on the tool the reviewed call
 * was made to (`toolId`: the tool it resolves to now; null when it no longer resolves, e.g. refused).
 */
function grantCovers(
  grant: ApprovalGrant | null,
  toolCallId: string,
  fingerprint: string,
  toolId: string | null,
): boolean {
  return (
    grant !== null &&
    grant.toolCallId === toolCallId &&
    grant.fingerprint === fingerprint &&
    (grant.toolId === null || toolId === null || toolId === grant.toolId)
  );
}

/** Levels whose in-flight call a disconnecting client cancels (see BatchContext.signal). */
const CANCELLABLE_WHEN_CLIENT_GOES: ReadonlySet<SideEffectLevel> = new Set(['READ_ONLY', 'IDEMPOTENT']);

export function conflict(call: SubmittedCall, entry: JournalEntry): DomainError {
  return new DomainError(
    LoopActingErrorCode.TOOL_CALL_CONFLICT,
    `toolCallId ${call.id} was already used for ${entry.toolName} with other arguments; a toolCallId names exactly one call. Use a new toolCallId for a new call.`,
    { toolCallId: call.id, existingToolName: entry.toolName },
  );
}

export function inProgress(call: SubmittedCall): DomainError {
  return new DomainError(
    LoopActingErrorCode.TOOL_CALL_IN_PROGRESS,
    `toolCallId ${call.id} is running right now; submit it again after it finishes to get its result.`,
    { toolCallId: call.id },
  );
}
