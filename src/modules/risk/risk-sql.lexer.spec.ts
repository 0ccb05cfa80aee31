import { splitSql } from './risk-sql.lexer';

describe('splitSql', () => {
  it('splits on semicolons outside strings and comments', () => {
    const { statements, closed } = splitSql("SELECT ';' AS a; -- x;\nDELETE FROM t /* ; */ WHERE id = 1;");
    expect(closed).toBe(true);
    expect(statements.map((s) => s.text)).toEqual(["SELECT ';' AS a", 'DELETE FROM t   WHERE id = 1']);
  });

  it('blanks string contents and quoted names in the masked text', () => {
    const [statement] = splitSql(`SELECT 'DROP TABLE x', "it's", \`t\` FROM t WHERE a = 'it''s'`).statements;
    expect(statement.masked).toBe("SELECT '', \"\", `` FROM t WHERE a = ''");
  });

  it('masks PostgreSQL dollar-quoted bodies', () => {
    expect(splitSql('SELECT $fn$ DROP TABLE x; $fn$').statements.map((s) => s.masked)).toEqual(["SELECT ''"]);
  });

  it('keeps the code of MySQL executable comments', () => {
    expect(splitSql('/*!50000 DROP TABLE users */').statements[0].masked).toBe('DROP TABLE users');
  });

  it('treats # as a comment but not inside identifiers or the #> operator', () => {
    expect(splitSql('DELETE FROM t # WHERE id = 1').statements[0].masked).toBe('DELETE FROM t');
    expect(splitSql("SELECT data #> '{a}' FROM t").statements[0].masked).toBe("SELECT data #> '' FROM t");
  });

  it('falls back to standard strings when backslash escapes leave a quote open', () => {
    const split = splitSql("SELECT 'C:\\' ; DROP TABLE x");
    expect(split.closed).toBe(true);
    expect(split.statements.map((s) => s.masked)).toEqual(["SELECT ''", 'DROP TABLE x']);
  });

  it('says so when a quote is never closed', () => {
    expect(splitSql("DELETE FROM t WHERE name = 'x").closed).toBe(false);
  });
});
