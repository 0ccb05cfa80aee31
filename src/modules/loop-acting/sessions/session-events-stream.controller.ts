import { Controller, Get, Headers, Inject, Param, Query, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiProduces,
  ApiTags,
  ApiOperation,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import { API_KEY_RESOLVER, type ApiKeyResolver, type AuthContext } from '@app/common/auth/auth-context';
import { authorize } from '@app/common/auth/authorize';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { ClientSignal } from '@app/common/http/client-signal.decorator';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { validationFailed } from '@app/common/errors/validation';
import { parseSeq, SEQ_RANGE } from '@app/common/dto/query-seq.decorator';
import { SessionEventsStreamer } from '@app/modules/session-events/session-events.streamer';
import { SessionsService } from './sessions.service';
import { ToolCallJournalRepository } from '../journal/tool-call-journal.repository';
import type { AgentSessionEntity } from './agent-session.entity';
import { SessionEventsQueryDto } from './session-events.dto';

@ApiTags('runtime: sessions')
@ApiBearerAuth()
@Roles('runtime')
@Controller('api/v1/sessions/:id/events/stream')
export class SessionEventsStreamController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly streamer: SessionEventsStreamer,
    private readonly journal: ToolCallJournalRepository,
    @Inject(API_KEY_RESOLVER) private readonly keys: ApiKeyResolver,
  ) {}

  @Get()
  @ApiOperation({ summary: "Follow a session's events as Server-Sent Events" })
  @ApiProduces('text/event-stream')
  @ApiHeader({
    name: 'Last-Event-ID',
    required: false,
    description: `Resume after this seq (sent by EventSource; replaces \`after\`): ${SEQ_RANGE}, else 400`,
  })
  @ApiOkResponse({
    description:
      'Server-Sent Events: `id: <seq>` and `data: {seq, type, at, data}` per event, oldest first, then new ones as they come; ends when the client disconnects, or after the last events of a closed session',
  })
  @ApiNoContentResponse({
    description: 'The session is closed and no event follows Last-Event-ID (`after`): nothing more will come',
  })
  @ApiErrors(400, 404, 429)
  async stream(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Query() query: SessionEventsQueryDto,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Headers('authorization') authorization: string | undefined,
    @Res() reply: FastifyReply,
    @ClientSignal() signal: AbortSignal,
  ): Promise<void> {
    const session = await this.sessions.load(auth, id);
    let after = query.after ?? 0;
    if (lastEventId !== undefined && lastEventId.trim() !== '') {
      const seq = parseSeq(lastEventId.trim());
      if (seq === null)
        throw validationFailed([
          {
            field: 'Last-Event-ID',
            problems: [`must be ${SEQ_RANGE}: the id: of the last event received (it replaces ?after=)`],
          },
        ]);
      after = seq;
    }
    // The guard's rule again while the stream is open: a key deleted since stops reading.
    const mayStillRead = () =>
      authorize(this.keys, authorization, ['runtime']).then(
        () => true,
        () => false,
      );
    // Since when the session is closed with no call running (null: open, or a call still running); 0 once gone.
    const sessionSettledAt = () =>
      this.sessions.load(auth, id).then(
        (loaded) => this.settledAt(loaded),
        (err: unknown) => {
          if (err instanceof DomainError && err.code === CommonErrorCode.NOT_FOUND) return 0;
          throw err;
        },
      );
    if (await this.streamer.isOver(id, after, await this.settledAt(session))) {
      await reply.status(204).send();
      return;
    }
    const place = this.streamer.reserve(auth.tenantId!);
    try {
      reply.hijack();
      await this.streamer.stream(id, after, reply.raw, signal, mayStillRead, sessionSettledAt);
    } finally {
      place.release();
    }
  }

  /**
   * Since when a session is closed with nothing left to report: null while it is open, and while a call of it still
   * runs (a batch running at the close finishes the call it is in, whose events come when it ends, however long after
   * the close); otherwise the later of its close and its last call's end.
   */
  private async settledAt(
    session: Pick<AgentSessionEntity, 'tenantId' | 'id' | 'status' | 'updatedAt'>,
  ): Promise<number | null> {
    if (session.status !== 'CLOSED') return null;
    const calls = await this.journal.callActivity(session.tenantId, session.id, Date.now());
    return calls.running ? null : Math.max(session.updatedAt, calls.lastFinishedAt);
  }
}
