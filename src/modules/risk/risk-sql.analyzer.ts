import type { Parser } from 'node-sql-parser';
import type { RiskLanguage, RiskScan } from './risk-scan';
import { isScopingCondition } from './risk-sql-scope';
import { SqlDml, hasScopingWhere, sqlShape, textScope } from './risk-sql.patterns';
import { SqlStatement, splitSql } from './risk-sql.lexer';

interface Dialect {
  readonly database: string;
  readonly module: string;
  parser?: Parser;
}

/** Grammars of node-sql-parser, each loaded on first need (the package ships one bundle per dialect). */
const MYSQL: Dialect = { database: 'MySQL', module: 'mysql' };
const POSTGRES: Dialect = { database: 'PostgreSQL', module: 'postgresql' };
const SQLITE: Dialect = { database: 'SQLite', module: 'sqlite' };
const TSQL: Dialect = { database: 'TransactSQL', module: 'transactsql' };

/** Longer statements go to the patterns only: the PEG grammars get slow on huge inputs. */
const MAX_PARSED_STATEMENT = 20_000;

/** Client commands that run a script file: its content is unknown. */
const INCLUDE = /^\s*(?:\\i|\\ir|\\include(?:_relative)?|\.read|source|\\\.)\s+\S/i;
/** Client commands that run a shell command: psql and mysql `\\! CMD`, mysql `system CMD`, sqlite `.shell` / `.system`. */
const CLIENT_SHELL = /^[ \t]*(?:\\!|\.shell\b|\.system\b|system[ \t]+(?=\S))(.*)$/gim;
/** PostgreSQL `COPY ... FROM PROGRAM 'CMD'` / `TO PROGRAM 'CMD'` (psql: `\\copy`): CMD runs in a shell. */
const COPY_PROGRAM = /^\s*\\?copy\b[\s\S]*?\b(?:from|to)\s+program\s+(?:E?'((?:[^']|'')*)'|\$(\w*)\$([\s\S]*?)\$\2\$)/i;
/** Statements that can only be SQL; anything else that no pattern recognised may be shell. */
const SQL_ONLY_START =
  /^[\s(]*(?:select|insert|create|alter|with|explain|grant|revoke|merge|upsert|vacuum|pragma|commit|rollback|begin|savepoint|release|analyze|replace\s+into|copy|comment\s+on|refresh|reindex|cluster)\b/i;
/** SQL that runs SQL held in a string: EXEC('...'), EXECUTE IMMEDIATE '...', PREPARE s FROM '...'. */
const DYNAMIC_SQL = /\b(?:exec|execute|sp_executesql|prepare)\b/i;
/**
 * Dynamic SQL whose text is held in a variable, so nobody here can read it: MySQL `PREPARE s FROM @q`, T-SQL
 * `EXEC (@sql)` and `sp_executesql @sql`, `EXECUTE IMMEDIATE v_sql` (read on the masked statement: strings are `''`).
 */
const OPAQUE_DYNAMIC_SQL =
  /\bprepare\s+\w+\s+from\s+@|\bexec(?:ute)?\s*\(\s*@|\bsp_executesql\s+@|\bexecute\s+immediate\s+(?!N?'')/i;
/** PostgreSQL `DO [LANGUAGE l] <code>`: an anonymous code block, run at once. */
const ANONYMOUS_BLOCK = /^\s*do\b/i;
/** The block's code: a dollar-quoted or a single-quoted string. */
const BLOCK_CODE = /\$([A-Za-z_]\w*)?\$([\s\S]*?)\$\1\$|'((?:[^']|'')*)'/g;
/** PL/pgSQL words after which a statement starts: `BEGIN TRUNCATE t; END` runs `TRUNCATE t`. */
const PLPGSQL_STATEMENT_START = /\b(?:declare|begin|then|else|loop|exception)\b/gi;
const ALTER_DROP_KEEPS_DATA = new Set([
  'index',
  'key',
  'constraint',
  'check',
  'foreign key',
  'primary key',
  'default',
  'fulltext',
  'spatial',
]);

/**
 * Reads SQL text statement by statement. Returns whether all of it is SQL (a statement that neither
 * parsed nor looks like SQL may be shell: `truncate -s 0 app.log`, `set -e; ...`).
 *
 * DROP / TRUNCATE / ALTER ... DROP are decided on the lexed tokens (the lexer already drops comments and
 * string contents, and the statement kind is all that matters). A DELETE / UPDATE is decided on the tokens
 * when that is certain (no WHERE; AND-ed `column = value` tests) and by node-sql-parser otherwise
 * (OR, tautologies, functions, joins), so only the statements that need a grammar pay for one.
 */
export function analyzeSql(text: string, scan: RiskScan): boolean {
  // Client commands end at the line's end, comments included (`\\! git push --force`): read on the raw text.
  for (const m of text.matchAll(CLIENT_SHELL)) if (m[1].trim()) scan.nested(m[1], 'shell');
  const split = splitSql(text);
  if (!split.closed) {
    scanUnparsedSql(text, scan);
    checkCopyProgram(text, scan);
    return false;
  }
  let allSql = true;
  for (const statement of split.statements) {
    checkCopyProgram(statement.text, scan);
    if (INCLUDE.test(statement.text)) {
      scan.report('opaque', statement.text);
      continue;
    }
    const shape = sqlShape(statement.masked);
    for (const rule of shape.ddl) scan.report(rule, statement.text);
    if (shape.dml) checkDml(shape.dml, statement.text, statement.masked, scan);
    else if (!shape.ddl.length && !SQL_ONLY_START.test(statement.masked)) allSql = false;
    // `exec` is also a shell builtin: the caller reads such text as shell too.
    if (DYNAMIC_SQL.test(statement.masked)) checkDynamicSql(statement, scan);
    if (ANONYMOUS_BLOCK.test(statement.masked)) checkAnonymousBlock(statement, scan);
  }
  return allSql;
}

/** Entry point of the `sql` language. */
export function readSql(text: string, scan: RiskScan): void {
  analyzeSql(text, scan);
}

/** Pattern-only check for text that is not known to be SQL (e.g. shell that did not parse). */
export function scanUnparsedSql(text: string, scan: RiskScan): void {
  const split = splitSql(text);
  const statements = split.closed ? split.statements : [{ text, masked: text }];
  for (const statement of statements) {
    const shape = sqlShape(statement.masked);
    for (const rule of shape.ddl) scan.report(rule, statement.text);
    if (shape.dml && !hasScopingWhere(shape.dml.rest)) scan.report(shape.dml.rule, statement.text);
  }
}

/** Reads the shell command of `COPY ... PROGRAM 'CMD'`. */
function checkCopyProgram(sql: string, scan: RiskScan): void {
  const copy = COPY_PROGRAM.exec(sql);
  const command = copy && (copy[1] !== undefined ? copy[1].replace(/''/g, "'") : copy[3]);
  if (command?.trim()) scan.nested(command, 'shell');
}

/** Reads the string literals of dynamic SQL as SQL in turn; SQL run from a variable counts as opaque. */
function checkDynamicSql(statement: SqlStatement, scan: RiskScan): void {
  if (OPAQUE_DYNAMIC_SQL.test(statement.masked)) scan.report('opaque', statement.text);
  for (const m of statement.text.matchAll(/N?'((?:[^']|'')*)'/g)) {
    const inner = m[1].replace(/''/g, "'");
    if (inner.trim()) scan.nested(inner, 'sql');
  }
}

/** Reads the code of a `DO` block in its language (PL/pgSQL unless LANGUAGE names another). */
function checkAnonymousBlock(statement: SqlStatement, scan: RiskScan): void {
  const language = blockLanguage(/\blanguage\s+(\w+)/i.exec(statement.masked)?.[1]);
  for (const m of statement.text.matchAll(BLOCK_CODE)) {
    const code = m[2] ?? m[3].replace(/''/g, "'");
    if (!code.trim()) continue;
    scan.nested(language === 'sql' ? code.replace(PLPGSQL_STATEMENT_START, '$&;') : code, language);
  }
}

function blockLanguage(name: string | undefined): RiskLanguage {
  const lang = (name ?? 'plpgsql').toLowerCase();
  if (lang === 'plpgsql' || lang === 'sql') return 'sql';
  if (lang.startsWith('plpython')) return 'python';
  if (lang.startsWith('plperl')) return 'perl';
  if (lang.startsWith('plv8') || lang.startsWith('pljs')) return 'js';
  if (lang.startsWith('plsh')) return 'shell';
  return 'auto';
}

function checkDml(dml: SqlDml, sql: string, masked: string, scan: RiskScan): void {
  const scope = textScope(dml);
  if (scope === 'scoped') return;
  if (scope === 'unscoped') {
    scan.report(dml.rule, sql);
    return;
  }
  const ast = sql.length <= MAX_PARSED_STATEMENT ? astify(sql, likelyDialects(masked), dml) : undefined;
  if (ast !== undefined) checkAst(ast, sql, scan);
  else if (!hasScopingWhere(dml.rest)) scan.report(dml.rule, sql);
}

/** Two grammars at most, the likelier first: a failed parse costs about as much as a successful one. */
function likelyDialects(masked: string): Dialect[] {
  if (/::|\binterval\s+''|\b(?:returning|ilike|only)\b|\$\d|\busing\b|\bset\b[\s\S]*\bfrom\b/i.test(masked))
    return [POSTGRES, SQLITE];
  if (/\[|\btop\b|@\w|\boutput\b/i.test(masked)) return [TSQL, MYSQL];
  return [MYSQL, POSTGRES];
}

function astify(sql: string, dialects: Dialect[], dml: SqlDml): unknown {
  const expected = dml.rule === 'unscoped-delete' ? 'delete' : 'update';
  for (const dialect of dialects) {
    let ast: unknown;
    try {
      ast = parserOf(dialect).astify(sql, { database: dialect.database });
    } catch {
      continue; // not this grammar: try the next one
    }
    // A grammar that reads the statement as something else misread it (T-SQL takes junk as variable assignments).
    const statements = Array.isArray(ast) ? ast : [ast];
    if (statements.length === 1 && hasType(statements[0], expected)) return ast;
  }
  return undefined;
}

function hasType(node: unknown, type: string): boolean {
  if (typeof node !== 'object' || node === null) return false;
  if ((node as { type?: unknown }).type === type) return true;
  return Object.values(node).some((v) => hasType(v, type));
}

function parserOf(dialect: Dialect): Parser {
  if (!dialect.parser) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- one dialect's build, loaded on first use
    const mod = require(`node-sql-parser/build/${dialect.module}`) as { Parser: new () => Parser };
    dialect.parser = new mod.Parser();
  }
  return dialect.parser;
}

/** Finds destructive statements anywhere in the tree (CTEs and subqueries included). */
function checkAst(node: unknown, sql: string, scan: RiskScan): void {
  if (Array.isArray(node)) {
    for (const child of node) checkAst(child, sql, scan);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const n = node as Record<string, unknown>;
  switch (n.type) {
    case 'drop':
      if ('name' in n || 'keyword' in n) scan.report('drop', sql);
      break;
    case 'truncate':
      if ('name' in n) scan.report('truncate', sql);
      break;
    case 'alter':
      if (Array.isArray(n.expr) && n.expr.some(dropsData)) scan.report('drop', sql);
      break;
    case 'delete':
      if ('where' in n && !isScopingCondition(n.where) && !joinScoped(n.from)) scan.report('unscoped-delete', sql);
      break;
    case 'update':
      if ('where' in n && 'set' in n && !isScopingCondition(n.where) && !joinScoped(n.table))
        scan.report('unscoped-update', sql);
      break;
  }
  for (const value of Object.values(n)) if (typeof value === 'object' && value !== null) checkAst(value, sql, scan);
}

function dropsData(expr: unknown): boolean {
  const e = expr as { action?: unknown; resource?: string; keyword?: string } | null;
  if (!e || String(e.action).toLowerCase() !== 'drop') return false;
  return !ALTER_DROP_KEEPS_DATA.has(String(e.resource ?? e.keyword ?? '').toLowerCase());
}

/** MySQL `DELETE t1 FROM t1 JOIN t2 ON ...` (and `UPDATE t1 JOIN t2 ON ... SET ...`) is narrowed by its join condition. */
function joinScoped(from: unknown): boolean {
  return (
    Array.isArray(from) &&
    from.some((f) => typeof f === 'object' && f !== null && 'on' in f && isScopingCondition((f as { on: unknown }).on))
  );
}
