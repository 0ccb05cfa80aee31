import { lstatSync, statSync } from 'node:fs';
import { isAbsolute, posix } from 'node:path';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import type { SandboxMount, SandboxRunRequest } from './sandbox.types';

const SKILLS_PATH = /^\/skills\/[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

function refuse(message: string): never {
  throw new DomainError(CommonErrorCode.VALIDATION_FAILED, message);
}

/** Checks a run request; returns the wall-time limit to apply (capped by `maxTimeoutMs`). */
export function validateSandboxRequest(req: SandboxRunRequest, maxTimeoutMs: number): number {
  if (typeof req.command !== 'string' || req.command.trim() === '') {
    refuse('command must be a non-empty shell command line');
  }
  if (req.command.includes('\0')) refuse('command must not contain NUL characters');
  if (!isAbsolute(req.workspaceDir ?? '')) refuse('workspaceDir must be an absolute host path');
  const workspace = lstatSync(req.workspaceDir, { throwIfNoEntry: false });
  if (!workspace?.isDirectory()) refuse('workspaceDir must be an existing folder, not a link');
  validateMounts(req.readOnlyMounts ?? []);
  if (req.maxFileBytes !== undefined && (!Number.isSafeInteger(req.maxFileBytes) || req.maxFileBytes < 0)) {
    refuse('maxFileBytes must be a whole number of bytes, 0 or more');
  }
  if (req.timeoutMs === undefined) return maxTimeoutMs;
  if (!Number.isInteger(req.timeoutMs) || req.timeoutMs <= 0) refuse('timeoutMs must be a positive whole number');
  return Math.min(req.timeoutMs, maxTimeoutMs);
}

function validateMounts(mounts: SandboxMount[]): void {
  const seen = new Set<string>();
  for (const mount of mounts) {
    if (!SKILLS_PATH.test(mount.sandboxPath) || posix.normalize(mount.sandboxPath) !== mount.sandboxPath) {
      refuse(
        `sandboxPath ${JSON.stringify(mount.sandboxPath)} must be a plain path under /skills/ (e.g. /skills/name)`,
      );
    }
    if (mount.sandboxPath.split('/').some((part) => part === '..' || part === '.')) {
      refuse(`sandboxPath ${JSON.stringify(mount.sandboxPath)} must not contain . or .. segments`);
    }
    if (seen.has(mount.sandboxPath)) refuse(`sandboxPath ${mount.sandboxPath} is mounted twice`);
    seen.add(mount.sandboxPath);
    if (!isAbsolute(mount.hostPath) || !statSync(mount.hostPath, { throwIfNoEntry: false })) {
      refuse(`hostPath of ${mount.sandboxPath} must be an existing absolute host path`);
    }
  }
}
