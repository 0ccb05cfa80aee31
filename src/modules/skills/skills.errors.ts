/** Error codes of the Skills module. */
export enum SkillsErrorCode {
  /** An uploaded skill package (zip or JSON files) was refused; the message names the problem. Nothing was stored. */
  SKILL_ARCHIVE_INVALID = 'SKILL_ARCHIVE_INVALID',
  /** The scope (the tenant, or the platform for official skills) already has a skill with this name. */
  SKILL_NAME_TAKEN = 'SKILL_NAME_TAKEN',
  /** The skill has SKILL_MAX_RELEASES releases already; a new one is refused, nothing stored. */
  SKILL_RELEASE_LIMIT = 'SKILL_RELEASE_LIMIT',
}
