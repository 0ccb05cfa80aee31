import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiProperty, ApiPropertyOptional, ApiTags, ApiOperation } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { CharLength } from '@app/common/text/char-length';
import { Auth, Roles } from '@app/common/auth/auth.decorators';
import type { AuthContext } from '@app/common/auth/auth-context';
import { ApiErrors } from '@app/common/dto/api-errors.decorator';
import { PageMetaDto, PageQueryDto, pageOf, pageWindow } from '@app/common/dto/page.dto';
import { AgentTasksRepository } from './agent-tasks.repository';
import { toTaskView } from './agent-tasks.service';
import { TASK_STATUSES } from './agent-tasks.types';

/** Characters of each task's answer a list shows (a page held up to 500 answers of MODEL_MAX_ANSWER_BYTES whole). */
const LISTED_ANSWER_CHARS = 2_000;

export class TasksQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ description: 'Only the tasks this session started' })
  @IsOptional()
  @IsString()
  @CharLength(1, 36)
  parentSessionId?: string;
}

export class TaskDto {
  @ApiProperty() taskId: string;
  @ApiProperty({ enum: TASK_STATUSES }) status: string;
  @ApiPropertyOptional({ description: `The answer (COMPLETED); its first ${LISTED_ANSWER_CHARS} characters in a list` })
  answer?: string;
  @ApiPropertyOptional({
    description: "The whole answer's length, when the list shows only its head (CHECK_TASK_STATUS reads it whole)",
  })
  answerChars?: number;
  @ApiPropertyOptional({
    description:
      "Why the child's final answer ended, when not as its model meant it (`length`: cut at its token limit)",
  })
  finishReason?: string;
  @ApiPropertyOptional() error?: string;
  @ApiProperty({ description: 'The sub-agent, by name' }) agent: string;
  @ApiProperty() parentSessionId: string;
  @ApiProperty() parentToolCallId: string;
  @ApiProperty() childSessionId: string;
  @ApiProperty({ description: 'Hops from the root session' }) depth: number;
  @ApiProperty() createdAt: string;
}

export class TaskPageDto extends PageMetaDto {
  @ApiProperty({ type: [TaskDto] }) items: TaskDto[];
}

@ApiTags('admin: tasks')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v1/admin/tasks')
export class AgentTasksAdminController {
  constructor(private readonly tasks: AgentTasksRepository) {}

  @Get()
  @ApiOperation({ summary: 'List sub-agent tasks' })
  @ApiOkResponse({ type: TaskPageDto, description: 'Sub-agent tasks of your tenant, oldest first' })
  @ApiErrors(400)
  async list(@Auth() auth: AuthContext, @Query() query: TasksQueryDto): Promise<TaskPageDto> {
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.tasks.list(auth.tenantId, query.parentSessionId, skip, take);
    const runs = await this.tasks.runsOf(rows, LISTED_ANSWER_CHARS);
    return pageOf(
      rows.map((t) => {
        const run = runs.get(t.childRunId) ?? null;
        const view = toTaskView(t, run);
        const cut = view.answer !== undefined && (run?.answerChars ?? 0) > LISTED_ANSWER_CHARS;
        return cut ? { ...view, answerChars: run!.answerChars! } : view;
      }),
      total,
      query,
    );
  }
}
