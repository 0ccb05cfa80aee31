import { nameKeyOf } from '@app/common/name-key';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, Repository } from 'typeorm';
import { AiToolEntity, PLATFORM_SCOPE } from '@app/modules/tool-registry/ai-tool.entity';

/** Queries of `ai_tool` the Feign scanner needs beyond the registry's own repository. */
@Injectable()
export class FeignToolRepository {
  constructor(@InjectRepository(AiToolEntity) private readonly tools: Repository<AiToolEntity>) {}

  /**
   * In one query: the platform-wide rows holding one of `names` in any case (whoever owns them), and every row a
   * scanner wrote (FEIGN/BUILTIN with a definition checksum), to find the ones whose decorator is gone.
   */
  findReconcileCandidates(names: string[]): Promise<AiToolEntity[]> {
    return this.tools
      .createQueryBuilder('t')
      .where('t.scope_key = :platform', { platform: PLATFORM_SCOPE })
      .andWhere(
        new Brackets((w) => {
          w.where("t.source IN ('FEIGN', 'BUILTIN') AND t.definition_checksum IS NOT NULL");
          if (names.length) w.orWhere('t.name_key IN (:...keys)', { keys: names.map(nameKeyOf) });
        }),
      )
      .getMany();
  }

  findPlatformTool(name: string): Promise<AiToolEntity | null> {
    return this.tools.findOne({ where: { scopeKey: PLATFORM_SCOPE, nameKey: nameKeyOf(name) } });
  }
}
