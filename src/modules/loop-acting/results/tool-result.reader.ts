import { Injectable } from '@nestjs/common';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import type { AuthContext } from '@app/common/auth/auth-context';
import { SessionsService } from '../sessions/sessions.service';
import { ToolCallJournalRepository } from '../journal/tool-call-journal.repository';
import { ToolResultStore } from './tool-result.store';
import { pageResult, ResultPage } from './tool-result.view';

/** Paged reading of a finished call's full result, scoped to the session's tenant. */
@Injectable()
export class ToolResultReader {
  constructor(
    private readonly sessions: SessionsService,
    private readonly journal: ToolCallJournalRepository,
    private readonly store: ToolResultStore,
  ) {}

  async page(
    auth: Pick<AuthContext, 'tenantId'>,
    sessionId: string,
    toolCallId: string,
    offset: number,
    limit: number,
  ): Promise<ResultPage & { toolCallId: string }> {
    const session = await this.sessions.load(auth, sessionId);
    const entry = await this.journal.find({ tenantId: session.tenantId, sessionId: session.id, toolCallId });
    if (!entry || entry.state === 'STARTED') {
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `No finished result for toolCallId ${toolCallId} in session ${sessionId}: only a call that finished ` +
          '(COMPLETED, FAILED or REJECTED) has one, not one PENDING_APPROVAL, NOT_RUN, running or of unknown outcome; ' +
          'use the toolCallId of a finished act result.',
      );
    }
    return { toolCallId, ...pageResult(await this.store.contentOf(entry), offset, limit) };
  }
}
