import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import type { SkillEntity } from './skill.entity';

/** A tenant sees its own skills and the official ones (tenantId null); the platform key sees all. */
export function canRead(tenantId: string | null, skill: SkillEntity): boolean {
  return tenantId === null || skill.tenantId === null || skill.tenantId === tenantId;
}

/** The skill if `tenantId` may read it; another tenant's skill is a 404, as one that does not exist. */
export function readable(tenantId: string | null, id: string, skill: SkillEntity | null): SkillEntity {
  if (!skill || !canRead(tenantId, skill)) throw skillNotFound(id);
  return skill;
}

/** The 404 of a skill that does not exist or that the caller may not see. */
export function skillNotFound(id: string): DomainError {
  return new DomainError(
    CommonErrorCode.NOT_FOUND,
    `No skill ${id} in your tenant or official; list them with GET /api/v1/admin/skills.`,
    {
      skillId: id,
    },
  );
}

/** Changing an official skill (a release, publish, delete) is the platform admin's (ADMIN_API_KEY) only. */
export function assertWritable(tenantId: string | null, skill: SkillEntity): void {
  if (tenantId !== null && skill.tenantId === null)
    throw new DomainError(
      CommonErrorCode.FORBIDDEN,
      `Skill ${skill.name} is official (platform-wide): only the platform admin key may change it.`,
    );
}

/** Where a new skill goes: a tenant key only into its own tenant; official skills only with the platform key. */
export function assertScope(tenantId: string | null, target: string | null): void {
  if (tenantId === null || tenantId === target) return;
  throw new DomainError(
    CommonErrorCode.FORBIDDEN,
    target === null
      ? 'Official skills (no tenantId) are uploaded with the platform admin key only; send tenantId to upload your own.'
      : `Your admin key is bound to tenant ${tenantId}; upload skills to that tenant.`,
  );
}
