import { Inject, Injectable, Logger } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { ArtifactsService } from '@app/modules/workspace/artifacts.service';
import { ArtifactOrphanSweeper } from '@app/modules/workspace/artifact-orphan.sweeper';
import { SkillReleaseMaterializer } from '@app/modules/skills/skill-release.materializer';
import { SessionsService } from '@app/modules/loop-acting/sessions/sessions.service';
import { closedParentAuth } from '@app/modules/agent-runs/subagents/subagent-tasks.close-hook';
import { SessionCursor, ClosedSessionRef, OPEN_SESSION_STATUSES, RetentionRepository } from './retention.repository';

/** Rows per delete statement: each one is a short transaction, whatever the table holds. */
const RETENTION_BATCH_ROWS = 500;
/** How retention walks the closed sessions due (a test gives smaller numbers). */
export interface RetentionSessionWalk {
  /** Closed sessions read per batch. */
  sessionsPerBatch: number;
  /** Batches per run, so one run ends; the next run goes on where this one stopped. */
  batchesPerRun: number;
}

export const RETENTION_SESSION_WALK = Symbol('RETENTION_SESSION_WALK');
export const DEFAULT_RETENTION_SESSION_WALK: RetentionSessionWalk = { sessionsPerBatch: 100, batchesPerRun: 100 };
const DAY_MS = 24 * 60 * 60 * 1000;

/** What one retention run deleted. */
export interface RetentionReport {
  cutoff: number;
  sessions: number;
  journalEntries: number;
  resultChunks: number;
  resumeRecords: number;
  hitlRequests: number;
  toolLogRows: number;
  /** Session events, written or still kept in session_event_outbox. */
  sessionEvents: number;
  /** Runs, messages and delegated tasks of the gateway's own loop. */
  agentRunRows: number;
  /** Session workspaces removed from WORKSPACE_ROOT. */
  workspaces: number;
  /** Published artifacts older than ARTIFACTS_RETENTION_DAYS (rows and files); 0 when that is 0. */
  artifacts: number;
  /**
   * Files in WORKSPACE_ROOT no row will ever name, older than a day: artifact files whose publish or delete a crash
   * cut short, and staged uploads never renamed into place.
   */
  orphanFiles: number;
  /** Unpacked skill releases no one needs any more, and abandoned half-built ones, removed from SKILL_CACHE_DIR. */
  skillReleases: number;
  /** ACTIVE and INTERRUPTED sessions unchanged for SESSION_IDLE_CLOSE_DAYS, closed by this run; 0 when that is 0. */
  idleSessionsClosed: number;
  /**
   * Closed sessions kept because a STARTED journal entry or a PENDING HITL request still refers to them, or because
   * they are a sub-agent task's child session whose parent session is not purged yet, or because this run closed their
   * tasks' child sessions that their close left open.
   */
  sessionsKept: number;
}

/**
 * Retention (RETENTION_DAYS): a session CLOSED longer than that is deleted with its journal, result chunks,
 * resume records, HITL requests, tool-log rows, session events and workspace; tool-log rows of no session (executeDirect) go once older
 * than that. Never an ACTIVE or INTERRUPTED session, a STARTED journal entry or a PENDING HITL request (the
 * session row then stays too). Children go before the session row, so a run cut short is finished by the next.
 * Artifacts outlive their session: they go ARTIFACTS_RETENTION_DAYS after they were published (never when that is 0).
 * Each run also removes files a crash left in WORKSPACE_ROOT ({@link ArtifactOrphanSweeper}) and prunes SKILL_CACHE_DIR
 * ({@link SkillReleaseMaterializer.pruneCache}).
 */
@Injectable()
export class RetentionService {
  private readonly logger = new Logger(RetentionService.name);
  private running: Promise<RetentionReport> | null = null;
  /**
   * Where the last run stopped when it read all its batches: the next run goes on from there, so closed sessions that
   * must be kept (more than one run reads) never hide newer ones that are due. Null: start from the oldest again.
   */
  private resumeAfter: SessionCursor | null = null;

  constructor(
    private readonly repo: RetentionRepository,
    private readonly workspaces: WorkspaceLocator,
    private readonly artifacts: ArtifactsService,
    private readonly orphans: ArtifactOrphanSweeper,
    private readonly skillReleases: SkillReleaseMaterializer,
    private readonly sessions: SessionsService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(RETENTION_SESSION_WALK) private readonly walk: RetentionSessionWalk,
  ) {}

  /** One run (a run already going in this process is joined, not doubled). */
  purge(now: number = Date.now()): Promise<RetentionReport> {
    this.running ??= this.purgeOnce(now).finally(() => (this.running = null));
    return this.running;
  }

  private async purgeOnce(now: number): Promise<RetentionReport> {
    const cutoff = now - this.config.retention.days * DAY_MS;
    const report: RetentionReport = {
      cutoff,
      sessions: 0,
      journalEntries: 0,
      resultChunks: 0,
      resumeRecords: 0,
      hitlRequests: 0,
      toolLogRows: 0,
      sessionEvents: 0,
      agentRunRows: 0,
      workspaces: 0,
      artifacts: 0,
      orphanFiles: 0,
      skillReleases: 0,
      idleSessionsClosed: 0,
      sessionsKept: 0,
    };
    if (this.config.retention.idleCloseDays > 0) report.idleSessionsClosed = await this.closeIdleSessions(now);
    let cursor = this.resumeAfter;
    this.resumeAfter = null;
    for (let batch = 0; batch < this.walk.batchesPerRun; batch++) {
      const sessions = await this.repo.closedSessionsBefore(cutoff, this.walk.sessionsPerBatch, cursor);
      for (const session of sessions) await this.purgeSession(session, report);
      if (sessions.length < this.walk.sessionsPerBatch) break;
      cursor = sessions[sessions.length - 1];
      if (batch === this.walk.batchesPerRun - 1) this.resumeAfter = cursor;
    }
    report.toolLogRows += await drain((limit) => this.repo.deleteSessionlessToolLog(cutoff, limit));
    const artifactDays = this.config.retention.artifactDays;
    if (artifactDays > 0) {
      const publishedBefore = now - artifactDays * DAY_MS;
      report.artifacts = await drain((limit) => this.artifacts.removePublishedBefore(publishedBefore, limit));
    }
    const orphans = await this.orphans.sweep(now);
    report.orphanFiles = orphans.artifactFiles + orphans.stagedFiles;
    const pruned = await this.skillReleases.pruneCache(now);
    report.skillReleases = pruned.releases + pruned.abandonedBuilds;
    if (report.idleSessionsClosed > 0)
      this.logger.log(
        `Closed ${report.idleSessionsClosed} sessions unchanged for ${this.config.retention.idleCloseDays} days (SESSION_IDLE_CLOSE_DAYS)`,
      );
    const removed = report.sessions + report.toolLogRows + report.artifacts + report.orphanFiles + report.skillReleases;
    if (removed > 0 || report.sessionsKept > 0) {
      this.logger.log(
        `Retention (${this.config.retention.days} days): deleted ${report.sessions} closed sessions, ${report.journalEntries} journal entries, ` +
          `${report.resultChunks} result chunks, ${report.resumeRecords} resume records, ${report.hitlRequests} HITL requests, ${report.toolLogRows} tool-log rows, ` +
          `${report.sessionEvents} session events, ${report.agentRunRows} agent-loop rows, ${report.workspaces} workspaces` +
          (artifactDays > 0 ? `, ${report.artifacts} artifacts older than ${artifactDays} days` : '') +
          `, ${report.orphanFiles} files a crash left in WORKSPACE_ROOT, ${report.skillReleases} unused skill releases; ` +
          `kept ${report.sessionsKept} closed sessions with a STARTED call, a PENDING HITL request, a parent session's task or child sessions just closed`,
      );
    }
    return report;
  }

  /**
   * Closes the ACTIVE and INTERRUPTED sessions unchanged for SESSION_IDLE_CLOSE_DAYS as DELETE /sessions/{id} closes
   * them (an approval they wait for rejected, their workspace removed, their sub-agent sessions closed); retention
   * deletes them RETENTION_DAYS later. One that fails to close is logged and tried again by the next run.
   */
  private async closeIdleSessions(now: number): Promise<number> {
    const days = this.config.retention.idleCloseDays;
    const idleBefore = now - days * DAY_MS;
    let closed = 0;
    let batches = this.walk.batchesPerRun;
    for (const status of OPEN_SESSION_STATUSES) {
      let cursor: SessionCursor | null = null;
      while (batches-- > 0) {
        const sessions = await this.repo.idleSessionsBefore(status, idleBefore, this.walk.sessionsPerBatch, cursor);
        for (const session of sessions) {
          const auth = {
            keyId: `retention: unchanged for ${days} days`,
            role: 'admin' as const,
            tenantId: session.tenantId,
          };
          try {
            if (await this.sessions.closeIdle(auth, session.id, idleBefore)) closed++;
          } catch (err) {
            this.logger.warn(`Could not close idle session ${session.id}: ${(err as Error).message}`);
          }
        }
        if (sessions.length < this.walk.sessionsPerBatch) break;
        cursor = sessions[sessions.length - 1];
      }
    }
    return closed;
  }

  private async purgeSession(session: ClosedSessionRef, report: RetentionReport): Promise<void> {
    // A sub-agent's session: its run holds the task's answer, which the parent session reads (CHECK_TASK_STATUS, the
    // admin task list) until the parent itself is purged with its tasks.
    if (await this.repo.isChildOfTask(session)) {
      report.sessionsKept++;
      return;
    }
    // Its tasks go with it: a child its close left open (the process died before the close hooks) would then never be
    // closed nor purged. It is closed as the hooks would have, and the session kept until a later run, once the child's
    // run has stopped (its task.finished is written to this session's events, which go with it).
    const unclosed = await this.repo.unclosedTaskChildren(session);
    if (unclosed.length > 0) {
      const auth = closedParentAuth(session.tenantId, session.id);
      for (const child of unclosed) await this.sessions.close(auth, child);
      report.sessionsKept++;
      return;
    }
    report.resultChunks += await drain((limit) => this.repo.deleteResultChunks(session, limit));
    report.resumeRecords += await drain((limit) => this.repo.deleteResumeRecords(session, limit));
    report.toolLogRows += await drain((limit) => this.repo.deleteSessionToolLog(session, limit));
    report.hitlRequests += await drain((limit) => this.repo.deleteDecidedHitlRequests(session, limit));
    report.journalEntries += await drain((limit) => this.repo.deleteFinishedJournal(session, limit));
    report.sessionEvents += await drain((limit) => this.repo.deleteKeptSessionEvents(session, limit));
    report.sessionEvents += await drain((limit) => this.repo.deleteSessionEvents(session, limit));
    report.agentRunRows += await drain((limit) => this.repo.deleteMessages(session, limit));
    report.agentRunRows += await drain((limit) => this.repo.deleteRuns(session, limit));
    report.agentRunRows += await drain((limit) => this.repo.deleteDelegatedTasks(session, limit));
    if (await this.workspaces.remove(session.tenantId, session.id)) report.workspaces++;
    if (await this.repo.deleteSessionIfEmpty(session)) report.sessions++;
    else report.sessionsKept++;
  }
}

/** Repeats a bounded delete until it deletes less than a full batch; returns the rows deleted in all. */
async function drain(deleteBatch: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(RETENTION_BATCH_ROWS);
    total += deleted;
    if (deleted < RETENTION_BATCH_ROWS) return total;
  }
}
