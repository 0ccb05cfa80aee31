import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { validationFailed } from '@app/common/errors/validation';
import { isUniqueViolation } from '@app/database/unique-violation';
import type { AuthContext } from '@app/common/auth/auth-context';
import { PageQueryDto, pageOf, pageWindow } from '@app/common/dto/page.dto';
import { AgentConfigService } from '@app/modules/agent-config/agent-config.service';
import { SkillsRepository } from './skills.repository';
import { SkillReleaseMaterializer } from './skill-release.materializer';
import { SkillsErrorCode } from './skills.errors';
import type { SkillEntity } from './skill.entity';
import type { SkillReleaseEntity } from './skill-release.entity';
import type { SkillPackageLimits } from './skill-package.types';
import type { SkillUpload, SkillUploadScopeCheck } from './skill-upload.reader';
import { assertScope, assertWritable, readable, skillNotFound } from './skill-access';
import { toReleaseDto, toSkillDto } from './skills.mapper';
import type { SkillDto, SkillFilePageDto, SkillPageDto, SkillReleaseDto } from './skills.dto';

const MAX_VERSION_ATTEMPTS = 5;

/** Skills and their releases (admin side): upload, publish and roll back, list, delete. */
@Injectable()
export class SkillsService {
  constructor(
    private readonly repo: SkillsRepository,
    private readonly agents: AgentConfigService,
    private readonly releases: SkillReleaseMaterializer,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  limits(): SkillPackageLimits {
    return { maxFiles: this.config.skills.maxFiles, maxBytes: this.config.skills.maxBytes };
  }

  /**
   * A new skill from its first release, which is published at once. `readUpload` reads it, checking the scope it
   * names (a tenant key only its own tenant, official skills the platform key only) before the archive is unpacked.
   */
  async create(
    auth: AuthContext,
    readUpload: (checkScope: SkillUploadScopeCheck) => Promise<SkillUpload>,
  ): Promise<SkillDto> {
    const upload = await readUpload((target) => assertScope(auth.tenantId, target ?? null));
    const tenantId = upload.tenantId ?? null;
    assertScope(auth.tenantId, tenantId);
    const now = Date.now();
    const { pkg } = upload;
    const skill: SkillEntity = {
      id: randomUUID(),
      tenantId,
      scopeKey: tenantId ?? '',
      name: pkg.name,
      description: pkg.description,
      currentVersion: 1,
      latestVersion: 1,
      createdAt: now,
      updatedAt: now,
    };
    const release = releaseRow(skill.id, 1, upload, now, now);
    try {
      await this.repo.transaction(async (m) => {
        await this.repo.insertSkill(m, skill);
        await this.repo.insertRelease(m, release, pkg.files);
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new DomainError(
          SkillsErrorCode.SKILL_NAME_TAKEN,
          `${tenantId === null ? 'The platform' : `Tenant ${tenantId}`} already has a skill named ${pkg.name}; upload a new release with POST /api/v1/admin/skills/{id}/releases.`,
          { name: pkg.name },
        );
      throw err;
    }
    return toSkillDto(skill, [release]);
  }

  /** A new release (not published until `publish`); its SKILL.md must keep the skill's name. */
  /**
   * A new release of skill `id` from the upload `readUpload` reads, called only once the key may write the skill:
   * another tenant's skill is a 404 (an official one a 403) before the archive is read or unpacked.
   */
  async addRelease(auth: AuthContext, id: string, readUpload: () => Promise<SkillUpload>): Promise<SkillReleaseDto> {
    let skill = await this.writable(auth, id);
    this.assertRoomForRelease(skill);
    const upload = await readUpload();
    if (upload.tenantId !== undefined && upload.tenantId !== skill.tenantId)
      throw validationFailed([
        {
          field: 'tenantId',
          problems: [`skill ${skill.name} belongs to ${skill.tenantId ?? 'the platform'}; leave tenantId out`],
        },
      ]);
    if (upload.pkg.name !== skill.name)
      throw validationFailed([
        {
          field: 'skillContent',
          problems: [
            `SKILL.md names "${upload.pkg.name}" but this skill is "${skill.name}"; a release keeps its skill's name`,
          ],
        },
      ]);
    for (let attempt = 1; ; attempt++) {
      // Versions are claimed one at a time (claimVersion) and releases never deleted alone: latestVersion counts them.
      this.assertRoomForRelease(skill);
      const version = skill.latestVersion + 1;
      const release = releaseRow(skill.id, version, upload, Date.now(), null);
      const stored = await this.repo.transaction(async (m) => {
        if (!(await this.repo.claimVersion(m, skill.id, skill.latestVersion))) return false;
        await this.repo.insertRelease(m, release, upload.pkg.files);
        return true;
      });
      if (stored) return toReleaseDto(skill, release);
      if (attempt >= MAX_VERSION_ATTEMPTS)
        throw new DomainError(
          CommonErrorCode.CONCURRENT_MODIFICATION,
          `Skill ${skill.name} is changing; retry the upload.`,
        );
      skill = await this.writable(auth, id);
    }
  }

  /** Makes a release current (an older one: a rollback). */
  async publish(auth: AuthContext, id: string, version: number): Promise<SkillDto> {
    const skill = await this.writable(auth, id);
    const release = await this.repo.findRelease(skill.id, version);
    if (!release) throw noRelease(skill, version);
    await this.repo.transaction((m) => this.repo.publish(m, release, Date.now()));
    return this.get(auth, id);
  }

  async list(auth: AuthContext, query: PageQueryDto): Promise<SkillPageDto> {
    const { skip, take } = pageWindow(query);
    const [rows, total] = await this.repo.listVisible(auth.tenantId, skip, take);
    const releases = await this.repo.releasesOf(rows.map((r) => r.id));
    return pageOf(
      rows.map((r) => toSkillDto(r, releases)),
      total,
      query,
    );
  }

  async get(auth: AuthContext, id: string): Promise<SkillDto> {
    const skill = readable(auth.tenantId, id, await this.repo.findSkill(id));
    return toSkillDto(skill, await this.repo.releasesOf([skill.id]));
  }

  /** Deletes the skill with every release, and unbinds it from every agent (their config versions move). */
  async remove(auth: AuthContext, id: string): Promise<SkillDto> {
    const skill = await this.writable(auth, id);
    const releases = await this.repo.releasesOf([skill.id]);
    await this.repo.transaction(async (m) => {
      // The skill's row first: of two deletions at once, the second finds it gone (404).
      if (!(await this.repo.lockSkill(m, skill.id))) throw skillNotFound(id);
      await this.agents.unbindSkillEverywhere(m, skill.id);
      await this.repo.deleteSkill(m, skill.id);
    });
    await this.releases.forget(skill.id);
    return toSkillDto(skill, releases);
  }

  async files(auth: AuthContext, id: string, version: number, query: PageQueryDto): Promise<SkillFilePageDto> {
    const skill = readable(auth.tenantId, id, await this.repo.findSkill(id));
    const release = await this.repo.findRelease(skill.id, version);
    if (!release) throw noRelease(skill, version);
    const { skip, take } = pageWindow(query);
    const all = await this.repo.fileIndex(skill.id, version);
    return pageOf(all.slice(skip, skip + take), all.length, query);
  }

  /** SKILL_MAX_RELEASES: a skill's releases are kept (a rollback publishes an older one), so their number is bounded. */
  private assertRoomForRelease(skill: SkillEntity): void {
    const max = this.config.skills.maxReleases;
    if (skill.latestVersion >= max)
      throw new DomainError(
        SkillsErrorCode.SKILL_RELEASE_LIMIT,
        `Skill ${skill.name} has ${skill.latestVersion} releases, the most SKILL_MAX_RELEASES (${max}) allows; nothing was stored. Upload the skill anew under another name (or delete it and upload it again), or raise SKILL_MAX_RELEASES.`,
        { releases: skill.latestVersion, max },
      );
  }

  private async writable(auth: AuthContext, id: string): Promise<SkillEntity> {
    const skill = readable(auth.tenantId, id, await this.repo.findSkill(id));
    assertWritable(auth.tenantId, skill);
    return skill;
  }
}

/** The 404 of a release the skill does not have: which ones it has (releases are numbered from 1, never deleted). */
function noRelease(skill: SkillEntity, version: number): DomainError {
  return new DomainError(
    CommonErrorCode.NOT_FOUND,
    `Skill ${skill.name} has no release ${version}: its releases are 1 to ${skill.latestVersion}; GET /api/v1/admin/skills/${skill.id} lists them.`,
    { version, latestVersion: skill.latestVersion },
  );
}

function releaseRow(
  skillId: string,
  version: number,
  upload: SkillUpload,
  now: number,
  publishedAt: number | null,
): SkillReleaseEntity {
  return {
    skillId,
    version,
    name: upload.pkg.name,
    description: upload.pkg.description,
    fileCount: upload.pkg.files.length,
    totalBytes: upload.pkg.totalBytes,
    createdAt: now,
    publishedAt,
  };
}
