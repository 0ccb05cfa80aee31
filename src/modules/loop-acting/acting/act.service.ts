import { Injectable } from '@nestjs/common';
import { DomainError } from '@app/common/errors/domain-error';
import type { AuthContext } from '@app/common/auth/auth-context';
import { validationFailed } from '@app/common/errors/validation';
import { SessionsService } from '../sessions/sessions.service';
import type { AgentSessionEntity } from '../sessions/agent-session.entity';
import type { SubmittedCall } from '../sessions/session.types';
import { LoopActingErrorCode } from '../loop-acting.errors';
import type { ActBody } from '../sessions/act-body.schema';
import type { ActResponse } from './act.types';
import type { BatchContext } from './acting.types';
import { BatchRunner, notRunResult } from './batch-runner';
import { VisibilitySnapshotService } from '@app/modules/agent-config/visibility/visibility-snapshot.service';
import { ConfigVersionService } from '@app/database/config-version.service';
import { ActStateQuery } from './act-state.query';
import { GatewayMetrics } from '@app/modules/metrics/gateway-metrics.service';
import { bindLogFields, type LogFields } from '@app/common/logging/log-context';

/** `POST /sessions/{id}/act`: the model's tool calls of one iteration, in order, through the journal. */
@Injectable()
export class ActService {
  constructor(
    private readonly sessions: SessionsService,
    private readonly batches: BatchRunner,
    private readonly actState: ActStateQuery,
    private readonly snapshots: VisibilitySnapshotService,
    private readonly configVersion: ConfigVersionService,
    private readonly metrics: GatewayMetrics,
  ) {}

  /**
   * `signal`: the client's; when it disconnects the batch stops (see BatchContext.signal for what is cancelled).
   * `runId`: the agent run whose loop acts (the gateway's own loop), handed to its calls.
   * `log`: the request's log fields (they get the session), handed to its calls' lines.
   */
  async act(
    auth: AuthContext,
    sessionId: string,
    dto: ActBody,
    { signal, runId, log }: { signal?: AbortSignal; runId?: string; log?: LogFields } = {},
  ): Promise<ActResponse> {
    const startedAt = performance.now();
    bindLogFields(log, { sessionId });
    try {
      const response = await this.actTimed(auth, sessionId, dto, startedAt, { signal, runId, log });
      this.metrics.recordAct(startedAt, response.status);
      return response;
    } catch (err) {
      this.metrics.recordAct(startedAt, 'ERROR');
      throw err;
    }
  }

  private async actTimed(
    auth: AuthContext,
    sessionId: string,
    dto: ActBody,
    freshSince: number,
    { signal, runId, log }: Pick<BatchContext, 'signal' | 'runId' | 'log'>,
  ): Promise<ActResponse> {
    const calls: SubmittedCall[] = dto.toolCalls.map((c) => ({
      id: c.id,
      name: c.name,
      arguments: c.arguments,
      ...(dto.format && { format: dto.format }),
    }));
    // One statement reads the session, its journal entries (scoped by the key's tenant, so they reveal nothing
    // when the session is not the caller's) and the configuration version that the calls' visibility re-check
    // will then find fresh (the view is confirmed, or reloaded, with that version while nothing else waits).
    const versionRead = { startedAt: performance.now(), bumps: this.configVersion.localBumpCount() };
    const state = this.actState.read(
      auth.tenantId!,
      sessionId,
      calls.map((c) => c.id),
    );
    const version = state.then((s) => s.configVersion);
    version.catch(() => undefined); // awaited through `state`; the view may not need it
    const [{ session: found, journaled }] = await Promise.all([
      state,
      this.snapshots.tenantView(auth.tenantId!, freshSince, { ...versionRead, version }),
    ]);
    const session = this.sessions.inScope(auth, sessionId, found);
    assertAccepting(session);
    if (dto.iteration < session.iteration) {
      throw new DomainError(
        LoopActingErrorCode.STALE_ITERATION,
        `Iteration ${dto.iteration} is older than the session's ${session.iteration}; reload the session and continue from its iteration.`,
        {
          sessionIteration: session.iteration,
        },
      );
    }
    assertUniqueIds(calls);
    const ctx: BatchContext = { session, iteration: dto.iteration, entry: 'ACT', freshSince, signal, runId, log };
    if (dto.iteration > session.iteration) {
      // Written with the batch's first STARTED (one commit), or alone when no call claims.
      ctx.iterationToRecord = dto.iteration;
      session.iteration = dto.iteration;
    }
    if (dto.iteration > session.iterationBudget) {
      // The calls the pause keeps for the resume pass the journal's check now, as they would unpaused: a reused id
      // with other arguments, or a call still running, is refused here rather than by the resume after the human
      // decided (which left the session waiting on a decided request for good).
      await this.batches.preflight(ctx, calls, journaled);
      await this.batches.recordIteration(ctx);
      const hitlRequest = await this.batches.interrupt(
        ctx,
        {
          requestType: 'CHECKPOINT_PAUSE',
          call: null,
          toolName: null,
          toolId: null,
          fingerprint: null,
          args: null,
          redactFields: [],
          rules: [],
          triggerReason: `iteration ${dto.iteration} passed the agent's budget of ${session.iterationBudget} iterations`,
          promptMessage: `The agent reached its iteration budget (${session.iterationBudget}). Resume to let it continue; nothing is approved by continuing.`,
        },
        { iteration: dto.iteration, pending: null, notRun: calls },
      );
      return { status: 'INTERRUPTED', results: calls.map((c) => notRunResult(c, 'a checkpoint pause')), hitlRequest };
    }
    return this.batches.run(ctx, calls, null, [], journaled);
  }
}

function assertAccepting(session: AgentSessionEntity): void {
  if (session.status === 'CLOSED') {
    throw new DomainError(
      LoopActingErrorCode.SESSION_CLOSED,
      `Session ${session.id} is closed; start a new session with POST /api/v1/sessions and submit the calls there.`,
    );
  }
  if (session.status === 'INTERRUPTED') {
    throw new DomainError(
      LoopActingErrorCode.SESSION_INTERRUPTED,
      `Session ${session.id} waits for a human decision (${session.hitlRequest?.requestType} on ${session.hitlRequest?.toolCallId ?? 'the session'}); POST /api/v1/sessions/${session.id}/resume first.`,
      { hitlRequest: session.hitlRequest },
    );
  }
}

function assertUniqueIds(calls: readonly SubmittedCall[]): void {
  const seen = new Set<string>();
  for (const [i, c] of calls.entries()) {
    if (seen.has(c.id))
      throw validationFailed([
        {
          field: `toolCalls.${i}.id`,
          problems: [`toolCallId ${c.id} appears twice in this batch; each call needs its own id`],
        },
      ]);
    seen.add(c.id);
  }
}
