import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '@app/common/auth/auth.decorators';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { FeignToolReportService } from './feign-tool-report.service';
import { FeignToolPageDto, FeignToolsQueryDto } from './feign-tools.dto';

@ApiTags('admin: registration')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/feign/tools')
export class FeignToolsController {
  constructor(private readonly report: FeignToolReportService) {}

  @Get()
  @ApiOperation({ summary: 'Scanned @FeignTool/@Tool methods and their registry rows, with drift' })
  @ApiOkResponse({ type: FeignToolPageDto })
  @ApiErrors(400)
  list(@Query() query: FeignToolsQueryDto): Promise<FeignToolPageDto> {
    return this.report.list(query);
  }
}
