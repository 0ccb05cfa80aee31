import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { col } from './migration-columns';

/** Skills, their immutable releases and the releases' files (text chunks, so a slice read loads only its chunks). */
export class CreateSkillTables1764462200000 implements MigrationInterface {
  name = 'CreateSkillTables1764462200000';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'skill',
        columns: [
          col.id(),
          col.varchar('tenant_id', 64, true),
          col.varchar('scope_key', 64),
          col.varchar('name', 64),
          col.text('description'),
          col.int('current_version', true),
          col.int('latest_version'),
          col.bigint('created_at'),
          col.bigint('updated_at'),
        ],
      }),
    );
    await q.createIndex(
      'skill',
      new TableIndex({ name: 'uq_skill_scope_name', columnNames: ['scope_key', 'name'], isUnique: true }),
    );
    await q.createTable(
      new Table({
        name: 'skill_release',
        columns: [
          { ...col.varchar('skill_id', 36), isPrimary: true },
          { ...col.int('version'), isPrimary: true },
          col.varchar('name', 64),
          col.text('description'),
          col.int('file_count'),
          col.int('total_bytes'),
          col.bigint('created_at'),
          col.bigint('published_at', true),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'skill_file',
        columns: [
          { ...col.varchar('skill_id', 36), isPrimary: true },
          { ...col.int('version'), isPrimary: true },
          { ...col.varchar('path', 512), isPrimary: true },
          { ...col.int('chunk'), isPrimary: true },
          col.int('char_start'),
          col.int('bytes'),
          col.int('total_chars'),
          col.text('content'),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('skill_file');
    await q.dropTable('skill_release');
    await q.dropTable('skill');
  }
}
