import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { col } from './migration-columns';

/**
 * Knowledge bases (RAG_SEARCH): the bases, their documents, the chunks that are searched and the per-base term
 * statistics that rank them. The chunk's `search_text` (tokens the gateway made itself, Chinese segmented, every
 * token at least 3 characters) is indexed for full text: an FTS5 table kept in step by triggers on SQLite, an
 * InnoDB FULLTEXT index on MySQL/MariaDB, created with `innodb_ft_enable_stopword` off and a binary collation so
 * that it matches exactly the tokens SQLite matches.
 */
export class CreateKnowledgeBases1764462100000 implements MigrationInterface {
  name = 'CreateKnowledgeBases1764462100000';

  async up(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type !== 'better-sqlite3';
    await q.createTable(
      new Table({
        name: 'knowledge_base',
        columns: [
          col.id(),
          col.varchar('tenant_id', 64),
          col.varchar('name', 128),
          col.varchar('name_key', 128),
          col.varchar('kind', 16),
          col.varchar('url', 2048, true),
          col.int('document_count'),
          col.int('chunk_count'),
          col.bigint('token_count'),
          col.bigint('created_at'),
          col.bigint('updated_at'),
        ],
        indices: [
          new TableIndex({
            name: 'uq_knowledge_base_tenant_name_key',
            columnNames: ['tenant_id', 'name_key'],
            isUnique: true,
          }),
        ],
      }),
    );
    await q.createTable(
      new Table({
        name: 'knowledge_document',
        columns: [
          col.id(),
          col.varchar('knowledge_base_id', 36),
          col.varchar('tenant_id', 64),
          col.varchar('title', 512),
          col.varchar('mime_type', 32),
          { ...col.text('content'), type: mysql ? 'longtext' : 'text' },
          col.text('metadata', true),
          col.int('chunk_count'),
          col.int('char_count'),
          col.bigint('created_at'),
        ],
        indices: [
          new TableIndex({ name: 'idx_knowledge_document_base', columnNames: ['knowledge_base_id', 'created_at'] }),
        ],
      }),
    );
    if (mysql) await this.createMysqlChunks(q);
    else await this.createSqliteChunks(q);
  }

  private async createSqliteChunks(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE knowledge_chunk (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      knowledge_base_id varchar(36) NOT NULL,
      document_id varchar(36) NOT NULL,
      seq integer NOT NULL,
      heading text NULL,
      content text NOT NULL,
      search_text text NOT NULL,
      token_count integer NOT NULL)`);
    await q.query('CREATE INDEX idx_knowledge_chunk_document ON knowledge_chunk (document_id, seq)');
    await q.query('CREATE INDEX idx_knowledge_chunk_base ON knowledge_chunk (knowledge_base_id)');
    await q.query(
      `CREATE VIRTUAL TABLE knowledge_chunk_fts USING fts5(search_text, content='knowledge_chunk', content_rowid='id', tokenize="unicode61 remove_diacritics 0 tokenchars '_'")`,
    );
    await q.query(`CREATE TRIGGER knowledge_chunk_fts_insert AFTER INSERT ON knowledge_chunk BEGIN
      INSERT INTO knowledge_chunk_fts(rowid, search_text) VALUES (new.id, new.search_text); END`);
    await q.query(`CREATE TRIGGER knowledge_chunk_fts_delete AFTER DELETE ON knowledge_chunk BEGIN
      INSERT INTO knowledge_chunk_fts(knowledge_chunk_fts, rowid, search_text) VALUES ('delete', old.id, old.search_text); END`);
    await q.query(`CREATE TABLE knowledge_term (
      knowledge_base_id varchar(36) NOT NULL,
      term varchar(64) NOT NULL,
      df integer NOT NULL,
      PRIMARY KEY (knowledge_base_id, term))`);
  }

  private async createMysqlChunks(q: QueryRunner): Promise<void> {
    // Stopwords are the gateway's own (one list for both databases); InnoDB's would drop tokens SQLite keeps.
    await q.query('SET SESSION innodb_ft_enable_stopword = OFF');
    await q.query(`CREATE TABLE knowledge_chunk (
      id int NOT NULL AUTO_INCREMENT PRIMARY KEY,
      knowledge_base_id varchar(36) NOT NULL,
      document_id varchar(36) NOT NULL,
      seq int NOT NULL,
      heading text NULL,
      content text NOT NULL,
      search_text mediumtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      token_count int NOT NULL,
      INDEX idx_knowledge_chunk_document (document_id, seq),
      INDEX idx_knowledge_chunk_base (knowledge_base_id),
      FULLTEXT INDEX ftx_knowledge_chunk_search (search_text)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
    await q.query(`CREATE TABLE knowledge_term (
      knowledge_base_id varchar(36) NOT NULL,
      term varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      df int NOT NULL,
      PRIMARY KEY (knowledge_base_id, term)
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(q: QueryRunner): Promise<void> {
    const mysql = q.connection.options.type !== 'better-sqlite3';
    await q.query('DROP TABLE knowledge_term');
    if (!mysql) {
      await q.query('DROP TRIGGER knowledge_chunk_fts_delete');
      await q.query('DROP TRIGGER knowledge_chunk_fts_insert');
      await q.query('DROP TABLE knowledge_chunk_fts');
    }
    await q.query('DROP TABLE knowledge_chunk');
    await q.dropTable('knowledge_document');
    await q.dropTable('knowledge_base');
  }
}
