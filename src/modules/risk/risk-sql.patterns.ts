import type { RiskRule } from './risk.types';

/**
 * Token patterns over one masked SQL statement (comments removed, string contents blanked by the lexer,
 * so `SELECT 'DROP TABLE x'` reads `SELECT ''`). They classify the statement; the WHERE of a
 * DELETE / UPDATE is then judged from the text when that is certain, else by the SQL parser.
 */
const IDENT = '[\\w.`"\\[\\]$]+';
const VALUE = "(?:''|-?\\d+(?:\\.\\d+)?|\\$\\d+|\\?|:\\w+|@\\w+|true|false|null)";
const COLUMN_VS_VALUE = new RegExp(
  `^\\s*([A-Za-z_][\\w.]*)\\s*(?:=|==|<>|!=|<|>|<=|>=)\\s*${VALUE}\\s*$|^\\s*([A-Za-z_][\\w.]*)\\s+is\\s+(?:not\\s+)?null\\s*$`,
  'i',
);
const VALUE_LIST = new RegExp(`\\s(?:not\\s+)?in\\s*\\(\\s*${VALUE}(?:\\s*,\\s*${VALUE})*\\s*\\)`, 'gi');
const VALUE_RANGE = new RegExp(`\\s(?:not\\s+)?between\\s+${VALUE}\\s+and\\s+${VALUE}`, 'gi');
/** Clause features the text check does not judge: they go to the parser. */
const NEEDS_PARSER =
  /[()"`[\]]|\|\||&&|\b(?:xor|like|ilike|rlike|regexp|similar|exists|case|escape)\b|\bnot\b(?!\s+null\b)/i;

const DROP =
  /\bdrop\s+(?:temporary\s+|materialized\s+|foreign\s+|global\s+|unique\s+)?(?:table|database|schema|view|sequence|index|user|role|function|procedure|trigger|type|extension|owned|tablespace|keyspace|collection|event|server|policy|publication|subscription|domain|aggregate|rule|login|synonym|stream|stage|warehouse|dataset|catalog)\b/i;
/** ALTER TABLE ... DROP of a column or partition (dropping an index or constraint keeps the data). */
const ALTER_TABLE = /^\s*alter\s+table\b/i;
const ALTER_DROP =
  /(?:^|[\s,])drop\s+(?!constraint\b|index\b|key\b|foreign\b|primary\b|check\b|default\b|not\b|fulltext\b|spatial\b)/i;
const TRUNCATE = new RegExp(
  `\\btruncate\\s+table\\b|^\\s*truncate\\s+(?:only\\s+)?${IDENT}(?:\\s*,\\s*${IDENT})*(?:\\s+(?:restart|continue)\\s+identity|\\s+cascade|\\s+restrict)*\\s*$`,
  'i',
);
const DELETE = new RegExp(
  `\\bdelete\\s+(?:(?:low_priority|quick|ignore)\\s+)*(?:top\\s*\\(?\\s*\\d+\\s*\\)?\\s+)?(?:${IDENT}(?:\\s*,\\s*${IDENT})*\\s+)?from\\s+(?:only\\s+)?(${IDENT})\\*?`,
  'i',
);
/** T-SQL allows `DELETE users WHERE ...` without FROM. */
const DELETE_NO_FROM = new RegExp(`^\\s*delete\\s+(?:top\\s*\\(?\\s*\\d+\\s*\\)?\\s+)?${IDENT}\\s*(?=$|where\\b)`, 'i');
/** What SET assigns first: a column, or PostgreSQL's column list `(a, b) = (...)`. */
const SET_TARGET = `(?:${IDENT}|\\([^()]*\\))`;
const UPDATE = new RegExp(
  `\\bupdate\\s+(?:(?:low_priority|ignore|only)\\s+)*${IDENT}\\*?(?:\\s+(?:as\\s+)?\\w+)?(?:\\s*,\\s*${IDENT}(?:\\s+(?:as\\s+)?\\w+)?)*\\s+set\\s+${SET_TARGET}\\s*=`,
  'i',
);
/** MySQL's multi-table `UPDATE t [AS a] [INNER|LEFT|CROSS ...] JOIN u [ON ...] SET ...`: the SET comes after the joins. */
const UPDATE_JOIN = new RegExp(
  `\\bupdate\\s+(?:(?:low_priority|ignore)\\s+)*${IDENT}(?:\\s+(?:as\\s+)?\\w+)?\\s+(?=(?:(?:natural|inner|cross|left|right|full|outer|straight_join)\\s+)*join\\b)`,
  'i',
);
const SET_AFTER_JOINS = new RegExp(`\\bset\\s+${SET_TARGET}\\s*=`, 'i');
/** What may follow `DELETE FROM t` in SQL (as opposed to prose like "delete from the list, then ..."). */
const SQL_TAIL = new RegExp(
  `^(?:$|(?:as\\s+)?(?:\\w+\\s+)?(?:where|using|returning|limit|order|join|inner|left|right|cross|natural|output)\\b|(?:(?:as\\s+)?\\w+\\s*)?(?:,\\s*${IDENT}(?:\\s+(?:as\\s+)?\\w+)?\\s*)*$)`,
  'i',
);
/** Words that start prose, not a table name: "delete from the list". */
const PROSE_TABLE = /^(?:the|a|an|my|your|our|their|his|her|its|this|that|these|those|all|each|every|any|some)$/i;
/**
 * EXPLAIN / DESCRIBE that only plans: without ANALYZE (or with `ANALYZE false`), the statement is not run.
 * The options are what comes before the explained statement's first keyword.
 */
const EXPLAIN =
  /^\s*(?:explain|describe|desc)\b([\s\S]*?)\b(?:delete|update|insert|replace|merge|with|select|table|values)\b/i;
const ANALYZE_ON = /\banaly[sz]e\b(?!\s*(?:=\s*)?(?:false|off|0)\b)/i;
const WHERE_CLAUSE = /\bwhere\b([\s\S]*?)(?:\b(?:returning|limit|order\s+by|group\s+by|output)\b|$)/i;
const SQL_KEYWORDS = new Set(['true', 'false', 'null', 'not', 'is', 'and', 'like', 'in', 'between', 'unknown']);

/** A DELETE or UPDATE found in a statement: the rule it breaks when unscoped, and the text after its table. */
export interface SqlDml {
  readonly rule: 'unscoped-delete' | 'unscoped-update';
  readonly rest: string;
}

/** What the patterns see in one masked statement. */
export interface SqlShape {
  /** DROP / TRUNCATE / ALTER ... DROP found. */
  readonly ddl: RiskRule[];
  readonly dml?: SqlDml;
}

export function sqlShape(masked: string): SqlShape {
  const ddl: RiskRule[] = [];
  if (ALTER_TABLE.test(masked) ? ALTER_DROP.test(masked) : DROP.test(masked)) ddl.push('drop');
  if (TRUNCATE.test(masked)) ddl.push('truncate');
  if (isPlanOnly(masked)) return { ddl };
  const del = DELETE.exec(masked);
  if (del && !PROSE_TABLE.test(del[1])) {
    const rest = masked.slice(del.index + del[0].length);
    if (SQL_TAIL.test(rest.trim())) return { ddl, dml: { rule: 'unscoped-delete', rest } };
  }
  const bare = DELETE_NO_FROM.exec(masked);
  if (bare) return { ddl, dml: { rule: 'unscoped-delete', rest: masked.slice(bare[0].length) } };
  const upd = UPDATE.exec(masked);
  if (upd) return { ddl, dml: { rule: 'unscoped-update', rest: masked.slice(upd.index + upd[0].length) } };
  const joined = UPDATE_JOIN.exec(masked);
  if (joined) {
    // The rest starts at the joins, so the scope check sees them (an ON that narrows the rows is the parser's call).
    const rest = masked.slice(joined.index + joined[0].length);
    if (SET_AFTER_JOINS.test(rest)) return { ddl, dml: { rule: 'unscoped-update', rest } };
  }
  return { ddl };
}

/** `EXPLAIN DELETE ...` shows a plan and deletes nothing; `EXPLAIN ANALYZE DELETE ...` runs it. */
export function isPlanOnly(masked: string): boolean {
  const explain = EXPLAIN.exec(masked);
  return explain !== null && !ANALYZE_ON.test(explain[1]);
}

/**
 * Judges the scope of a DELETE / UPDATE from its masked text when that is certain, without parentheses:
 * no WHERE (and no join), or an OR branch with no column at all (`1=1`, `true`, `'' = ''`) or a column
 * compared with itself → `unscoped`; OR branches that each AND a `column op value` test → `scoped`;
 * anything else (parentheses, functions, LIKE, quoted names, joins) → `unknown`, for the parser to decide.
 */
export function textScope(dml: SqlDml): 'scoped' | 'unscoped' | 'unknown' {
  const where = WHERE_CLAUSE.exec(dml.rest);
  if (/\b(?:join|on)\b/i.test(where ? dml.rest.slice(0, where.index) : dml.rest)) return 'unknown';
  if (!where) return 'unscoped';
  const clause = where[1].replace(VALUE_LIST, ' = 0').replace(VALUE_RANGE, ' = 0');
  if (NEEDS_PARSER.test(clause)) return 'unknown';
  let verdict: 'scoped' | 'unknown' = 'scoped';
  for (const branch of clause.split(/\bor\b/i)) {
    const parts = branch.split(/\band\b/i);
    if (parts.every((part) => !mentionsName(part) || isSelfComparison(part))) return 'unscoped';
    if (!parts.some(isColumnTest)) verdict = 'unknown';
  }
  return verdict;
}

function isColumnTest(part: string): boolean {
  const m = COLUMN_VS_VALUE.exec(part);
  const column = m?.[1] ?? m?.[2];
  return column !== undefined && !SQL_KEYWORDS.has(column.toLowerCase());
}

function mentionsName(part: string): boolean {
  return (part.match(/[A-Za-z_][\w.]*/g) ?? []).some((w) => !SQL_KEYWORDS.has(w.toLowerCase()));
}

function isSelfComparison(part: string): boolean {
  const m = /^\s*([\w.]+)\s*(?:=|==|<=>|>=|<=|is)\s*([\w.]+)\s*$/i.exec(part);
  return m !== null && m[1].toLowerCase() === m[2].toLowerCase();
}

/** Pattern-only verdict on a WHERE that no grammar parsed: each OR branch needs a part that reads a column. */
export function hasScopingWhere(rest: string): boolean {
  const where = WHERE_CLAUSE.exec(rest);
  if (!where) return false;
  const branches = where[1].replace(/[()]/g, ' ').split(/\bor\b|\|\|/i);
  return branches.every((branch) => branch.split(/\band\b|&&/i).some(readsColumn));
}

function readsColumn(condition: string): boolean {
  const self = /^\s*([\w.`"]+)\s*(?:=|<=>|is|like)\s*([\w.`"]+)\s*$/i.exec(condition);
  if (self && self[1].toLowerCase() === self[2].toLowerCase()) return false;
  if (/\blike\s+'%*'\s*$/i.test(condition)) return false;
  const words = condition.replace(/'[^']*'/g, ' ').match(/[A-Za-z_][\w.]*/g) ?? [];
  return words.some((w) => !SQL_KEYWORDS.has(w.toLowerCase()));
}
