import { toIso } from '@app/database/epoch-ms.transformer';
import type { SkillEntity } from './skill.entity';
import type { SkillReleaseEntity } from './skill-release.entity';
import type { SkillDto, SkillReleaseDto } from './skills.dto';

export function toReleaseDto(skill: Pick<SkillEntity, 'currentVersion'>, r: SkillReleaseEntity): SkillReleaseDto {
  return {
    version: r.version,
    fileCount: r.fileCount,
    totalBytes: r.totalBytes,
    createdAt: toIso(r.createdAt)!,
    publishedAt: toIso(r.publishedAt),
    current: skill.currentVersion === r.version,
  };
}

export function toSkillDto(skill: SkillEntity, releases: SkillReleaseEntity[]): SkillDto {
  return {
    id: skill.id,
    name: skill.name,
    description: skill.description,
    tenantId: skill.tenantId,
    official: skill.tenantId === null,
    currentVersion: skill.currentVersion,
    latestVersion: skill.latestVersion,
    releases: releases.filter((r) => r.skillId === skill.id).map((r) => toReleaseDto(skill, r)),
    createdAt: toIso(skill.createdAt)!,
    updatedAt: toIso(skill.updatedAt)!,
  };
}
