import type { FastifyRequest } from 'fastify';
import { DomainError } from '@app/common/errors/domain-error';
import { validationFailed } from '@app/common/errors/validation';
import { AjvBodyPipe } from '@app/common/http/ajv-body.pipe';
import { TENANT_ID_PATTERN } from '@app/modules/tool-registry/tool-registry.types';
import { SkillsErrorCode } from './skills.errors';
import { readSkillZip } from './skill-zip.reader';
import { checkSkillPackage } from './skill-package.rules';
import {
  RawSkillEntry,
  SKILL_ENTRY_FILE,
  SkillPackage,
  SkillPackageLimits,
  SkillPackageRefusal,
  SKILL_ZIP_OVERHEAD_BYTES,
} from './skill-package.types';
import { SKILL_JSON_UPLOAD_SCHEMA, type SkillJsonUpload } from './skills.dto';

/** An upload that passed every package rule; `tenantId` undefined: not given (official). */
export interface SkillUpload {
  tenantId: string | null | undefined;
  pkg: SkillPackage;
}

/** Checks that the caller may upload into the scope the upload names (throws, e.g. 403, when not). */
export type SkillUploadScopeCheck = (tenantId: string | null | undefined) => void;

const JSON_UPLOAD = new AjvBodyPipe<SkillJsonUpload>(SKILL_JSON_UPLOAD_SCHEMA);

/**
 * Reads `POST /admin/skills` (and `.../releases`): a multipart form (fields `file`, the zip, and `tenantId`) or
 * a JSON body. Refusals: 400 SKILL_ARCHIVE_INVALID for a zip, 400 VALIDATION_FAILED for JSON; nothing is stored.
 * `checkScope` runs on the upload's tenantId before the archive is unpacked or the package checked: a key that may
 * not upload there is refused (403) whatever the archive holds, and hostile input is parsed only for those who may.
 */
export async function readSkillUpload(
  req: FastifyRequest,
  body: unknown,
  limits: SkillPackageLimits,
  checkScope: SkillUploadScopeCheck = () => undefined,
): Promise<SkillUpload> {
  if (req.isMultipart()) return readMultipart(req, limits, checkScope);
  const json = JSON_UPLOAD.transform(body);
  checkScope(json.tenantId);
  const entries: RawSkillEntry[] = [
    { path: SKILL_ENTRY_FILE, data: Buffer.from(json.skillContent, 'utf8') },
    ...(json.files ?? []).map((f) => ({ path: f.path, data: Buffer.from(f.contentBase64, 'base64') })),
  ];
  try {
    return { tenantId: json.tenantId, pkg: checkSkillPackage(entries, limits) };
  } catch (err) {
    if (err instanceof SkillPackageRefusal)
      throw validationFailed([{ field: jsonField(err, json), problems: [err.problem] }]);
    throw err;
  }
}

/**
 * The JSON field a refusal is about: `skillContent` for SKILL.md's own text (its front matter, its encoding), and for
 * any problem of an upload that sent no files (SKILL.md is then all of it); `files` otherwise.
 */
function jsonField(err: SkillPackageRefusal, json: SkillJsonUpload): 'skillContent' | 'files' {
  return err.file === SKILL_ENTRY_FILE || !json.files?.length ? 'skillContent' : 'files';
}

async function readMultipart(
  req: FastifyRequest,
  limits: SkillPackageLimits,
  checkScope: SkillUploadScopeCheck,
): Promise<SkillUpload> {
  let zip: Buffer | undefined;
  let tenantId: string | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file' && part.fieldname === 'file' && zip === undefined) zip = await part.toBuffer();
      else if (part.type === 'field' && part.fieldname === 'tenantId' && typeof part.value === 'string')
        tenantId = part.value;
      else throw refused(`unexpected form field "${part.fieldname}": send only "file" (the zip) and "tenantId"`);
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    throw refused(formProblem(err as Error & { code?: string }, limits));
  }
  if (!zip) throw refused('no zip in the form: send the skill folder as a .zip in the field "file"');
  if (tenantId !== undefined && !TENANT_ID_PATTERN.test(tenantId))
    throw validationFailed([{ field: 'tenantId', problems: ['must be 1-64 letters, digits, _ . or -'] }]);
  checkScope(tenantId);
  try {
    return { tenantId, pkg: checkSkillPackage(await readSkillZip(zip, limits), limits) };
  } catch (err) {
    if (err instanceof SkillPackageRefusal) throw refused(err.problem);
    throw err;
  }
}

/** What was wrong with a form the multipart parser stopped reading (its limits: see registerMultipartUploads). */
function formProblem(err: Error & { code?: string }, limits: SkillPackageLimits): string {
  switch (err.code) {
    case 'FST_REQ_FILE_TOO_LARGE':
      return `the zip is larger than ${limits.maxBytes + SKILL_ZIP_OVERHEAD_BYTES} bytes (SKILL_MAX_BYTES, ${limits.maxBytes}, and 1 MiB for the zip's own headers): leave large files out of the skill, or raise SKILL_MAX_BYTES`;
    case 'FST_FILES_LIMIT':
      return 'the form holds more than one file: send one zip in the field "file"';
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return 'the form has too many fields: send only "file" (the zip) and "tenantId"';
    default:
      return `the upload could not be read: ${err.message}`;
  }
}

function refused(problem: string): DomainError {
  return new DomainError(
    SkillsErrorCode.SKILL_ARCHIVE_INVALID,
    `The skill package was refused: ${problem}. Nothing was stored.`,
    {
      problem,
    },
  );
}
