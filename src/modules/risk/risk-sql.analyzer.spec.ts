import { evaluateRiskText } from './risk-text.evaluator';
import type { RiskRule } from './risk.types';

function sqlRules(text: string): RiskRule[] {
  return evaluateRiskText(text, 'sql').rules.map((r) => r.rule);
}

describe('analyzeSql', () => {
  describe('DROP', () => {
    it.each([
      'DROP TABLE users',
      'drop table users',
      'DROP TABLE IF EXISTS a, b',
      'DROP/**/TABLE users',
      'DROP /* it is fine */ TABLE users',
      'DROP -- note\nTABLE users',
      'DROP DATABASE prod',
      'DROP SCHEMA s CASCADE',
      'DROP MATERIALIZED VIEW mv',
      'ALTER TABLE users DROP COLUMN email',
      'ALTER TABLE users DROP email',
      'ALTER TABLE users ADD COLUMN x INT, DROP COLUMN y',
      'ALTER TABLE t DROP PARTITION p1',
      'SELECT 1; DROP TABLE users',
      '/*!40101 DROP TABLE users */',
    ])('flags %s', (text) => {
      expect(sqlRules(text)).toContain('drop');
    });

    it.each([
      "SELECT 'DROP TABLE x'",
      'SELECT "DROP TABLE x"',
      'SELECT 1 -- DROP TABLE x',
      'SELECT 1 /* DROP TABLE x */',
      "INSERT INTO log (q) VALUES ('drop table users')",
      'SELECT $$DROP TABLE x$$',
      'ALTER TABLE t DROP CONSTRAINT c_pk',
      'ALTER TABLE t DROP INDEX idx_a',
      'SELECT drop_count FROM stats',
    ])('leaves %s alone', (text) => {
      expect(evaluateRiskText(text, 'sql').risky).toBe(false);
    });
  });

  describe('TRUNCATE', () => {
    it.each([
      'TRUNCATE users',
      'truncate table users',
      'TRUNCATE TABLE a, b RESTART IDENTITY CASCADE',
      'TRUNCATE ONLY logs',
    ])('flags %s', (text) => {
      expect(sqlRules(text)).toContain('truncate');
    });

    it('leaves the TRUNCATE() number function alone', () => {
      expect(evaluateRiskText('SELECT TRUNCATE(1.234, 1)', 'sql').risky).toBe(false);
    });
  });

  describe('DELETE and UPDATE scope', () => {
    it.each<[string, RiskRule]>([
      ['DELETE FROM users', 'unscoped-delete'],
      ['delete from users;', 'unscoped-delete'],
      ['DELETE FROM users -- WHERE id = 1', 'unscoped-delete'],
      ['DELETE FROM users /* WHERE id = 1 */', 'unscoped-delete'],
      ['DELETE FROM users WHERE 1=1', 'unscoped-delete'],
      ['DELETE FROM users WHERE 1', 'unscoped-delete'],
      ['DELETE FROM users WHERE true', 'unscoped-delete'],
      ['DELETE FROM users WHERE TRUE AND 1 = 1', 'unscoped-delete'],
      ["DELETE FROM users WHERE 'a'='a'", 'unscoped-delete'],
      ['DELETE FROM users WHERE "a"="a"', 'unscoped-delete'],
      ['DELETE FROM users WHERE id = 1 OR 1=1', 'unscoped-delete'],
      ['DELETE FROM users WHERE (id = 1) OR (2 > 1)', 'unscoped-delete'],
      ['DELETE FROM users WHERE id = id', 'unscoped-delete'],
      ["DELETE FROM users WHERE name LIKE '%'", 'unscoped-delete'],
      ['DELETE FROM users WHERE NOT false', 'unscoped-delete'],
      ['DELETE FROM users WHERE COALESCE(1, 1) = 1', 'unscoped-delete'],
      ['DELETE FROM users LIMIT 10', 'unscoped-delete'],
      ['DELETE users', 'unscoped-delete'],
      ['WITH d AS (DELETE FROM users RETURNING id) SELECT 1', 'unscoped-delete'],
      ['EXPLAIN ANALYZE DELETE FROM users', 'unscoped-delete'],
      ['UPDATE users SET admin = 1', 'unscoped-update'],
      ['UPDATE users SET admin = 1 -- WHERE id = 3', 'unscoped-update'],
      ["UPDATE users SET a = 'x' WHERE 'b' = 'b'", 'unscoped-update'],
      ['UPDATE users SET a = 1 WHERE id = 3 OR TRUE', 'unscoped-update'],
      ['UPDATE t1, t2 SET t1.a = 1', 'unscoped-update'],
      ['UPDATE users JOIN roles SET users.admin = 1', 'unscoped-update'],
      ['DELETE FROM users*', 'unscoped-delete'],
      ['UPDATE users* SET a = 1', 'unscoped-update'],
      ['UPDATE users SET (a, b) = (1, 2)', 'unscoped-update'],
      ['UPDATE ONLY users SET (a) = (SELECT 1)', 'unscoped-update'],
      ['UPDATE users u CROSS JOIN roles r SET u.admin = 1', 'unscoped-update'],
      ['UPDATE users u JOIN roles r ON 1 = 1 SET u.admin = 1', 'unscoped-update'],
      ['update users as u left join orders o on true set u.flag = 1', 'unscoped-update'],
      ['DELETE t FROM users t', 'unscoped-delete'],
      ['DELETE t FROM users AS t', 'unscoped-delete'],
      ['delete u from `users` u;', 'unscoped-delete'],
      ['DELETE t1, t2 FROM t1, t2', 'unscoped-delete'],
      ['DELETE FROM users u', 'unscoped-delete'],
      ['DELETE FROM users AS u', 'unscoped-delete'],
      ['DELETE t FROM users t WHERE 1 = 1', 'unscoped-delete'],
      ['EXPLAIN (ANALYZE) DELETE FROM users', 'unscoped-delete'],
      ['EXPLAIN (ANALYZE true, BUFFERS) UPDATE users SET a = 1', 'unscoped-update'],
      ['explain analyse delete from users', 'unscoped-delete'],
      ['EXPLAIN (FORMAT JSON, ANALYZE) DELETE FROM users', 'unscoped-delete'],
      ['EXPLAIN DELETE FROM a; DELETE FROM b', 'unscoped-delete'],
    ])('flags %s', (text, rule) => {
      expect(sqlRules(text)).toContain(rule);
    });

    it.each([
      'DELETE FROM users WHERE id = 5',
      'DELETE FROM users WHERE id = ?',
      'DELETE FROM users WHERE id = $1',
      "DELETE FROM users WHERE email = 'a@b.c' AND tenant_id = 7",
      'DELETE FROM users WHERE deleted_at IS NOT NULL',
      'DELETE FROM users WHERE id IN (1, 2, 3)',
      'DELETE FROM users WHERE id IN (SELECT user_id FROM bans)',
      'DELETE FROM users WHERE created_at < NOW()',
      "DELETE FROM s WHERE expires_at < NOW() - INTERVAL '7 days'",
      "DELETE FROM users WHERE name LIKE 'tmp_%'",
      'DELETE FROM users WHERE (id = 1 OR id = 2)',
      'DELETE FROM users WHERE id BETWEEN 1 AND 10',
      'DELETE t1 FROM t1 JOIN t2 ON t1.id = t2.id',
      'DELETE FROM users WHERE id = 5 RETURNING *',
      'UPDATE users u JOIN orders o ON o.user_id = u.id SET u.flag = 1',
      'DELETE FROM users* WHERE id = 3',
      'UPDATE users SET (a, b) = (1, 2) WHERE id = 3',
      'UPDATE users u INNER JOIN orders o ON o.user_id = u.id SET u.flag = 1 WHERE u.id = 3',
      "UPDATE users SET name = 'x' WHERE id = 1",
      'UPDATE t SET a = 1 FROM u WHERE t.id = u.id',
      "UPDATE users SET data = data || '{}'::jsonb WHERE id = 1",
      'SELECT * FROM users WHERE 1=1',
      'INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = 2',
      'SELECT * FROM t FOR UPDATE',
      'CREATE TABLE c (id INT REFERENCES p(id) ON DELETE CASCADE)',
      'GRANT DELETE, UPDATE ON t TO app',
      'DELETE t FROM users t WHERE t.id = 5',
      'DELETE FROM users u WHERE u.id = 5',
      'EXPLAIN DELETE FROM users',
      'explain update users set admin = 1',
      'EXPLAIN VERBOSE DELETE FROM users',
      'EXPLAIN (ANALYZE false) DELETE FROM users',
      'EXPLAIN (ANALYZE off, COSTS) UPDATE users SET a = 1',
      'EXPLAIN (FORMAT JSON) DELETE FROM users',
      'EXPLAIN FORMAT=JSON DELETE FROM users',
      'EXPLAIN QUERY PLAN DELETE FROM users',
      'DESCRIBE DELETE FROM users',
      "EXPLAIN DELETE FROM users WHERE note = 'analyze'",
    ])('leaves %s alone', (text) => {
      expect(evaluateRiskText(text, 'sql')).toEqual({ risky: false, rules: [] });
    });
  });

  describe('dynamic SQL', () => {
    it.each<[string, RiskRule]>([
      ["EXEC('DROP TABLE users')", 'drop'],
      ["EXECUTE IMMEDIATE 'TRUNCATE TABLE audit'", 'truncate'],
      ["SET @q = 'DROP TABLE users'; PREPARE s FROM @q; EXECUTE s", 'opaque'],
      ['EXEC (@sql)', 'opaque'],
      ['EXECUTE(@a + @b)', 'opaque'],
      ['EXEC sp_executesql @stmt', 'opaque'],
      ["EXECUTE sp_executesql @stmt, N'@id int', @id = 1", 'opaque'],
      ['EXECUTE IMMEDIATE v_sql', 'opaque'],
    ])('flags %s as %s', (text, rule) => {
      expect(sqlRules(text)).toContain(rule);
    });

    it.each([
      "EXEC('SELECT 1')",
      "EXEC sp_executesql N'SELECT * FROM t WHERE id = @id', N'@id int', @id = 1",
      "PREPARE s FROM 'SELECT * FROM t WHERE id = ?'; EXECUTE s USING @id",
      'EXEC dbo.cleanup @days = 30',
      'EXECUTE s',
    ])('leaves %s alone', (text) => {
      expect(evaluateRiskText(text, 'sql')).toEqual({ risky: false, rules: [] });
    });
  });

  describe('PostgreSQL anonymous code blocks (DO), which run at once', () => {
    it.each<[string, RiskRule]>([
      ['DO $$ BEGIN DROP TABLE users; END $$', 'drop'],
      ['DO $body$ BEGIN DELETE FROM users; END $body$;', 'unscoped-delete'],
      ["DO 'BEGIN TRUNCATE users; END'", 'truncate'],
      ["DO LANGUAGE plpgsql $$ BEGIN EXECUTE 'DROP TABLE ' || quote_ident('users'); END $$", 'drop'],
      ["DO $$ BEGIN EXECUTE format('DROP TABLE %I', 'users'); END $$", 'drop'],
      ['DO LANGUAGE plpython3u $$ import shutil; shutil.rmtree("/srv") $$', 'recursive-delete'],
      ['SELECT 1; DO $$ BEGIN UPDATE users SET admin = true; END $$', 'unscoped-update'],
    ])('flags %s as %s', (text, rule) => {
      expect(sqlRules(text)).toContain(rule);
      expect(evaluateRiskText(text).rules.map((r) => r.rule)).toContain(rule);
    });

    it.each([
      "DO $$ BEGIN RAISE NOTICE 'hello'; END $$",
      'DO $$ BEGIN DELETE FROM sessions WHERE id = 5; END $$',
      'CREATE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql',
    ])('leaves %s alone', (text) => {
      expect(evaluateRiskText(text, 'sql')).toEqual({ risky: false, rules: [] });
    });
  });

  describe('SQL that runs shell commands', () => {
    it.each<[string, RiskRule]>([
      ['psql -c "\\! rm -rf /srv"', 'recursive-delete'],
      ['psql app <<SQL\nSELECT 1;\n\\! git push --force\nSQL\n', 'force-push'],
      ['mysql -e "system rm -rf /srv"', 'recursive-delete'],
      ['mysql -e "\\! rm -rf /srv"', 'recursive-delete'],
      ['sqlite3 app.db ".shell rm -rf /srv"', 'recursive-delete'],
      ['sqlite3 app.db ".system rm -rf /srv"', 'recursive-delete'],
      ['psql -c "COPY t FROM PROGRAM \'rm -rf /srv\'"', 'recursive-delete'],
      ['psql -c "\\copy t TO PROGRAM \'git reset --hard\'"', 'hard-reset'],
    ])('flags %s as %s', (text, rule) => {
      expect(evaluateRiskText(text, 'shell').rules.map((r) => r.rule)).toContain(rule);
    });

    it('reads the command of COPY ... PROGRAM given as SQL', () => {
      expect(sqlRules("COPY t FROM PROGRAM 'rm -rf /srv'")).toContain('recursive-delete');
      expect(evaluateRiskText("COPY (SELECT 1) TO PROGRAM 'rm -rf /srv'").risky).toBe(true);
      expect(evaluateRiskText("COPY t FROM PROGRAM 'rm -rf /srv'").rules.map((r) => r.rule)).toContain(
        'recursive-delete',
      );
    });

    it.each(['psql -c "COPY t FROM PROGRAM \'gzip -dc /data/t.csv.gz\'"', 'psql -c "\\! ls -la"'])(
      'leaves %s alone',
      (text) => {
        expect(evaluateRiskText(text, 'shell').risky).toBe(false);
      },
    );
  });

  describe('other databases', () => {
    it.each<[string, RiskRule]>([
      ['db.users.drop()', 'drop'],
      ['db.dropDatabase()', 'drop'],
      ["db.getCollection('users').deleteMany({})", 'unscoped-delete'],
      ['db["users"].remove({})', 'unscoped-delete'],
      ['FLUSHALL', 'drop'],
      ['flushdb', 'drop'],
      ['cqlsh -e "DROP KEYSPACE prod"', 'drop'],
      ['cqlsh db1 --execute="TRUNCATE users"', 'truncate'],
    ])('flags %s, as a database tool takes it, as %s', (text, rule) => {
      expect(evaluateRiskText(text).rules.map((r) => r.rule)).toContain(rule);
    });

    it.each(['db.users.find({})', 'db.users.deleteOne({ _id: 1 })', 'cqlsh -e "SELECT * FROM t"', 'GET key'])(
      'leaves %s alone',
      (text) => {
        expect(evaluateRiskText(text).risky).toBe(false);
      },
    );
  });

  describe('database clients', () => {
    it.each<[string, RiskRule]>([
      ['psql -c "DROP TABLE x"', 'drop'],
      ['psql --command="truncate t" db', 'truncate'],
      ['psql -h db -U app -d app -c "DELETE FROM t"', 'unscoped-delete'],
      ['mysql -uroot -psecret -e "DROP DATABASE app"', 'drop'],
      ['mysql -e"DROP TABLE t"', 'drop'],
      ['mysql --execute "UPDATE t SET a=1" app', 'unscoped-update'],
      ['mariadb -e "drop table t"', 'drop'],
      ['sqlite3 app.db "DROP TABLE t"', 'drop'],
      ['sqlite3 -cmd "DELETE FROM t" app.db', 'unscoped-delete'],
      ['duckdb db.duck -c "DROP TABLE t"', 'drop'],
      ['sqlcmd -S srv -Q "TRUNCATE TABLE t"', 'truncate'],
      ['clickhouse-client --query "DROP TABLE t"', 'drop'],
      ['echo "DROP TABLE t" | psql', 'drop'],
      ['psql <<SQL\nDELETE FROM t;\nSQL\n', 'unscoped-delete'],
      ['mysql app <<< "DROP TABLE t"', 'drop'],
      ['psql -f drop.sql', 'opaque'],
      ['mysql app < dump.sql', 'opaque'],
      ["psql -c '\\i /tmp/x.sql'", 'opaque'],
      ['dropdb app', 'drop'],
      ['mysqladmin -uroot drop app', 'drop'],
      ['redis-cli flushall', 'drop'],
      ['mongosh --eval "db.dropDatabase()"', 'drop'],
      ['mongosh --eval "db.users.deleteMany({})"', 'unscoped-delete'],
    ])('flags %s as %s', (text, rule) => {
      expect(evaluateRiskText(text, 'shell').rules.map((r) => r.rule)).toContain(rule);
    });

    it.each([
      'psql -c "SELECT 1"',
      'psql app',
      'mysql -uroot -psecret app',
      'sqlite3 app.db ".schema"',
      'redis-cli get k',
      'mongosh --eval "db.users.find({})"',
    ])('leaves %s alone', (text) => {
      expect(evaluateRiskText(text, 'shell').risky).toBe(false);
    });
  });

  it('reports the statement, not the whole script', () => {
    expect(evaluateRiskText('SELECT 1; DELETE FROM users; SELECT 2', 'sql').rules).toEqual([
      { rule: 'unscoped-delete', match: 'DELETE FROM users' },
    ]);
  });
});
