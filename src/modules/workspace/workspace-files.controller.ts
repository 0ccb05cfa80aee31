import { Controller, Get, Inject, Param, Put, Query, Req, Res, StreamableFile, UseInterceptors } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiProduces,
  ApiResponse,
  ApiTags,
  ApiOperation,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { ErrorResponseDto } from '@app/common/dto/error-response.dto';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { RAW_UPLOAD_ROUTE } from '@app/common/http/raw-upload.parser';
import { closeIfReaderStalls } from '@app/common/http/client-idle-timeout';
import { attachmentDisposition } from '@app/common/http/attachment-disposition';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { WorkspaceFiles } from './workspace-files.service';
import { WorkspaceGate } from './workspace.gate';
import { WorkspaceSessions } from './workspace-sessions.service';
import { WorkspaceEvents } from './workspace.events';
import { TransferLimit } from '@app/common/http/transfer-limit.interceptor';
import { pageOf, pageWindow } from '@app/common/dto/page.dto';
import {
  WorkspaceListingDto,
  WorkspaceListQueryDto,
  WorkspacePathQueryDto,
  WorkspaceWriteDto,
} from './workspace-files.dto';

/** The runtime's view of a session workspace: list, download, upload (raw bytes, streamed to disk). */
@ApiTags('runtime: workspace files')
@ApiBearerAuth()
@Roles('runtime')
@Controller('api/v1/sessions/:id/files')
export class WorkspaceFilesController {
  constructor(
    private readonly sessions: WorkspaceSessions,
    private readonly files: WorkspaceFiles,
    private readonly events: WorkspaceEvents,
    private readonly gate: WorkspaceGate,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get()
  @ApiOperation({ summary: "List a session workspace's files" })
  @ApiOkResponse({ type: WorkspaceListingDto })
  @ApiErrors(400, 404, 409)
  async list(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Query() query: WorkspaceListQueryDto,
  ): Promise<WorkspaceListingDto> {
    const owner = await this.sessions.open(auth, id);
    const { path, entries, truncated } = await this.gate.run(owner.dir, 'files', () =>
      this.files.list(owner.dir, query.path ?? '', query.recursive === true),
    );
    const { skip, take } = pageWindow(query);
    return { path, ...pageOf(entries.slice(skip, skip + take), entries.length, query), truncated };
  }

  @Get('content')
  @ApiOperation({ summary: 'Download a file of a session workspace' })
  @UseInterceptors(TransferLimit)
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The file as stored (application/octet-stream)' })
  @ApiErrors(400, 404, 409)
  async download(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Query() query: WorkspacePathQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    const owner = await this.sessions.open(auth, id);
    // Opened while no command runs; the stream then reads the file it opened, whatever the path becomes.
    const file = await this.gate.run(owner.dir, 'files', () => this.files.openForDownload(owner.dir, query.path ?? ''));
    closeIfReaderStalls(reply, this.config.clientIdleTimeoutMs);
    return new StreamableFile(file.stream, {
      type: 'application/octet-stream',
      length: file.size,
      disposition: attachmentDisposition(file.path.split('/').pop()!),
    });
  }

  @Put('content')
  @ApiOperation({ summary: 'Upload a file into a session workspace' })
  @RouteConfig(RAW_UPLOAD_ROUTE)
  @UseInterceptors(TransferLimit)
  @ApiConsumes('application/octet-stream')
  @ApiBody({ schema: { type: 'string', format: 'binary' } })
  @ApiResponse({ status: 201, type: WorkspaceWriteDto, description: 'A new file' })
  @ApiOkResponse({ type: WorkspaceWriteDto, description: 'An existing file replaced' })
  @ApiResponse({ status: 413, type: ErrorResponseDto, description: 'WORKSPACE_QUOTA_EXCEEDED: nothing was written' })
  @ApiErrors(400, 404, 409, 415)
  async upload(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Query() query: WorkspacePathQueryDto,
    @Req() req: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WorkspaceWriteDto> {
    const owner = await this.sessions.open(auth, id);
    const body = req.body ?? Readable.from([]);
    if (!(body instanceof Readable))
      throw new DomainError(
        CommonErrorCode.UNSUPPORTED_MEDIA_TYPE,
        'Send the file as raw bytes with Content-Type: application/octet-stream (a JSON body is read as JSON, not as a file).',
      );
    // Staged first, holding nothing while the sender sends; only the landing waits for a command in the workspace.
    const staged = await this.files.stage(owner.dir, query.path ?? '', body);
    const write = await this.gate.run(owner.dir, 'files', () => this.files.writeStaged(staged));
    await this.events.fileWritten(owner, write, 'UPLOAD');
    reply.status(write.created ? 201 : 200);
    return write;
  }
}
