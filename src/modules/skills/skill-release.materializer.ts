import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readdir, rename, rm, rmdir, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { SkillsRepository } from './skills.repository';
import { readable } from './skill-access';
import type { SkillEntity } from './skill.entity';

export interface MaterializeRequest {
  /** The tenant that uses the skill (its own and official skills only); null: the platform. */
  tenantId: string | null;
  skillId?: string;
  name?: string;
  /** Default: the current published release. */
  version?: number;
}

const READ_ONLY_FILE = 0o444;
const READ_ONLY_EXECUTABLE = 0o555;
const READ_ONLY_DIR = 0o555;
const HOUR_MS = 60 * 60 * 1000;
/**
 * A release directory that is not its skill's current release goes once no one has asked for it this long: longer
 * than any command may run (SANDBOX_TIMEOUT_MS is at most an hour), so no command still has it mounted.
 */
export const UNUSED_RELEASE_MS = 24 * HOUR_MS;
/** A half-built release (`<version>.tmp-*`) this old was left by a build that crashed. */
const ABANDONED_BUILD_MS = HOUR_MS;
/** The names the cache holds: skill ids (UUIDs), releases, half-built releases. Pruning touches nothing else. */
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const SKILL_DIR_NAME = new RegExp(`^${UUID}$`);
const RELEASE_DIR_NAME = /^\d+$/;
const BUILD_DIR_NAME = new RegExp(`^\\d+\\.tmp-${UUID}$`);

/** What one {@link SkillReleaseMaterializer.pruneCache} removed. */
export interface SkillCachePruneReport {
  /** Release directories: of skills since deleted, or not current and unused for UNUSED_RELEASE_MS. */
  releases: number;
  /** Half-built directories left by crashed builds. */
  abandonedBuilds: number;
}

/**
 * Unpacks a skill release into a host directory, read-only on disk, for the sandbox to mount at `/skills/<name>`.
 * Releases are immutable, so a directory is built once per release (`SKILL_CACHE_DIR/<skillId>/<version>`) and
 * reused: it is written under a temporary name and renamed into place when complete, so concurrent callers, in
 * this process or in other instances sharing the directory, never see a half-written release. Each use stamps the
 * directory's mtime, so {@link pruneCache} can drop releases no one uses any more (they are rebuilt if asked for).
 */
@Injectable()
export class SkillReleaseMaterializer {
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(
    private readonly repo: SkillsRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  async materialize(req: MaterializeRequest): Promise<string> {
    const skill = await this.find(req);
    const version = req.version ?? skill.currentVersion;
    const release = version === null ? null : await this.repo.findRelease(skill.id, version);
    if (!release)
      throw new DomainError(
        CommonErrorCode.NOT_FOUND,
        `Skill ${skill.name} has no release ${version ?? '(published)'}.`,
      );
    const dir = join(resolve(this.config.skills.cacheDir), skill.id, String(release.version));
    let pending = this.inflight.get(dir);
    if (!pending) {
      pending = this.build(skill.id, release.version, dir).finally(() => this.inflight.delete(dir));
      this.inflight.set(dir, pending);
    }
    await pending;
    await markUsed(dir, Date.now());
    return dir;
  }

  /**
   * Removes from SKILL_CACHE_DIR what no one needs: a release not asked for in UNUSED_RELEASE_MS that is not its
   * skill's current one or whose skill is gone (removed at delete time, best effort; unknown to this database
   * either way, so a gateway on another database sharing the folder keeps what it uses), and builds abandoned by a
   * crash. A skill's current release always stays, and so does anything not named like the
   * cache's own folders (SKILL_CACHE_DIR set to a folder that holds other things loses none of them). Run by the
   * retention job.
   */
  async pruneCache(now: number = Date.now()): Promise<SkillCachePruneReport> {
    const report: SkillCachePruneReport = { releases: 0, abandonedBuilds: 0 };
    const root = resolve(this.config.skills.cacheDir);
    for (const skillId of (await readdir(root).catch(() => [] as string[])).filter((n) => SKILL_DIR_NAME.test(n))) {
      const skillDir = join(root, skillId);
      const skill = await this.repo.findSkill(skillId);
      let left = 0;
      for (const entry of await readdir(skillDir).catch(() => [] as string[])) {
        const path = join(skillDir, entry);
        const unusedFor = now - ((await stat(path).catch(() => null))?.mtimeMs ?? now);
        if (BUILD_DIR_NAME.test(entry) && unusedFor >= ABANDONED_BUILD_MS) {
          await removeTree(path);
          report.abandonedBuilds++;
        } else if (
          RELEASE_DIR_NAME.test(entry) &&
          unusedFor >= UNUSED_RELEASE_MS &&
          (!skill || Number(entry) !== skill.currentVersion)
        ) {
          await discardRelease(path);
          report.releases++;
        } else left++;
      }
      if (!skill && left === 0) await rmdir(skillDir).catch(() => undefined);
    }
    return report;
  }

  /**
   * Removes every release directory of a deleted skill (best effort: what cannot be removed now stays, harmless, as
   * the skill is gone from the database). A command running with the skill mounted sees its files vanish.
   */
  async forget(skillId: string): Promise<void> {
    await removeTree(join(resolve(this.config.skills.cacheDir), skillId)).catch(() => undefined);
  }

  private async find(req: MaterializeRequest): Promise<SkillEntity> {
    if (req.skillId !== undefined) return readable(req.tenantId, req.skillId, await this.repo.findSkill(req.skillId));
    const name = req.name ?? '';
    const skill = req.tenantId === null ? null : await this.repo.findUsableByName(req.tenantId, name);
    return readable(req.tenantId, name, skill);
  }

  private async build(skillId: string, version: number, dir: string): Promise<string> {
    if (await exists(dir)) return dir;
    const tmp = `${dir}.tmp-${randomUUID()}`;
    try {
      await mkdir(tmp, { recursive: true });
      for (const file of await this.repo.fileIndex(skillId, version)) {
        const target = resolve(tmp, file.path);
        if (!target.startsWith(tmp + sep)) throw new Error(`skill file ${file.path} would leave its folder`);
        await mkdir(dirname(target), { recursive: true });
        const text = await this.repo.fileText(skillId, version, file.path);
        await writeFile(target, text, { mode: text.startsWith('#!') ? READ_ONLY_EXECUTABLE : READ_ONLY_FILE });
      }
      await sealDirectories(tmp);
      await rename(tmp, dir);
    } catch (err) {
      await removeTree(tmp);
      // Another caller (another instance) renamed its complete copy into place first: use it.
      if (await exists(dir)) return dir;
      throw err;
    }
    return dir;
  }
}

/** Stamps a release directory's mtime with its last use (its owner may, read-only as it is). */
async function markUsed(dir: string, now: number): Promise<void> {
  const seconds = now / 1000;
  await utimes(dir, seconds, seconds).catch(() => undefined);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Makes every directory under `root` (and `root`) read-only, deepest first. */
async function sealDirectories(root: string): Promise<void> {
  for (const entry of await readdir(root, { withFileTypes: true }))
    if (entry.isDirectory()) await sealDirectories(join(root, entry.name));
  await chmod(root, READ_ONLY_DIR);
}

/**
 * Removes a release directory that a later use would take as complete: renamed aside first (as a build is named), so
 * a crash during the removal leaves an abandoned build that pruning removes, never part of a release under its name.
 */
async function discardRelease(dir: string): Promise<void> {
  const aside = `${dir}.tmp-${randomUUID()}`;
  await rename(dir, aside);
  await removeTree(aside);
}

async function removeTree(root: string): Promise<void> {
  const unseal = async (path: string): Promise<void> => {
    await chmod(path, 0o755).catch(() => undefined);
    for (const entry of await readdir(path, { withFileTypes: true }).catch(() => []))
      if (entry.isDirectory()) await unseal(join(path, entry.name));
  };
  await unseal(root);
  await rm(root, { recursive: true, force: true });
}
