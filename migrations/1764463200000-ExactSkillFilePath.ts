import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * On MySQL, a skill release's file paths are compared byte for byte (`utf8mb4_bin`), as on SQLite and on the disk of
 * the sandbox's copy. Under `utf8mb4_unicode_ci` every character outside the BMP (emoji, rare Chinese such as 𠮷 or
 * 𩸽) weighs the same, so `𠮷.md` and `𩸽.md` were one primary key: the upload failed (409 SKILL_NAME_TAKEN on a new
 * skill, 500 on a release) where SQLite stored both. Names that differ only in letter case or accents are still refused
 * by the package rules on both databases. A no-op on SQLite. Rolling back fails on a release that by then holds two
 * such paths.
 */
export class ExactSkillFilePath1764463200000 implements MigrationInterface {
  name = 'ExactSkillFilePath1764463200000';

  async up(q: QueryRunner): Promise<void> {
    await collate(q, 'utf8mb4_bin');
  }

  async down(q: QueryRunner): Promise<void> {
    await collate(q, 'utf8mb4_unicode_ci');
  }
}

async function collate(q: QueryRunner, collation: string): Promise<void> {
  if (q.connection.options.type === 'better-sqlite3') return;
  await q.query(`ALTER TABLE skill_file MODIFY path varchar(512) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`);
}
