import { Controller, Delete, Get, Inject, Param, Res, StreamableFile, UseInterceptors } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiBearerAuth, ApiOkResponse, ApiProduces, ApiTags, ApiOperation } from '@nestjs/swagger';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors, ApiErrorsForEveryRole } from '@app/common/dto/api-errors.decorator';
import { closeIfReaderStalls } from '@app/common/http/client-idle-timeout';
import { attachmentDisposition } from '@app/common/http/attachment-disposition';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ArtifactsService } from './artifacts.service';
import { ArtifactDto } from './workspace-files.dto';
import { TransferLimit } from '@app/common/http/transfer-limit.interceptor';

/**
 * Published files (PUBLISH_FILE), readable by the keys of their tenant (and the platform admin key), deleted by its
 * admins (ARTIFACTS_MAX_BYTES bounds what a tenant's artifacts hold).
 */
@ApiTags('runtime: artifacts')
@ApiBearerAuth()
@Roles('runtime', 'admin')
@Controller('api/v1/artifacts')
export class ArtifactsController {
  constructor(
    private readonly artifacts: ArtifactsService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get(':id')
  @ApiOperation({ summary: "Get an artifact's metadata" })
  @ApiOkResponse({ type: ArtifactDto })
  @ApiErrorsForEveryRole(404)
  get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ArtifactDto> {
    return this.artifacts.get(auth.tenantId, id);
  }

  @Get(':id/content')
  @ApiOperation({ summary: "Download an artifact's bytes" })
  @UseInterceptors(TransferLimit)
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The published bytes; X-Content-SHA256 carries their hash' })
  @ApiErrorsForEveryRole(404)
  async content(
    @Auth() auth: AuthContext,
    @Param('id') id: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<StreamableFile> {
    const { view, stream } = await this.artifacts.content(auth.tenantId, id);
    reply.header('x-content-sha256', view.sha256);
    closeIfReaderStalls(reply, this.config.clientIdleTimeoutMs);
    return new StreamableFile(stream, {
      type: 'application/octet-stream',
      length: view.size,
      disposition: attachmentDisposition(view.name),
    });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete an artifact' })
  @Roles('admin')
  @ApiOkResponse({ type: ArtifactDto, description: 'The artifact as it was; its file is gone' })
  @ApiErrors(403, 404)
  remove(@Auth() auth: AuthContext, @Param('id') id: string): Promise<ArtifactDto> {
    return this.artifacts.remove(auth.tenantId, id);
  }
}
