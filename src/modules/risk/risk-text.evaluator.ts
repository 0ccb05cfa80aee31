import type { RiskHint, RiskVerdict } from './risk.types';
import { scanInterpreterCode } from './risk-code.scanner';
import { RiskMatchSink } from './risk-match.sink';
import { mayBeRisky } from './risk-precheck';
import { EvaluationWork, newEvaluationWork, RiskAnalyzers, RiskScan } from './risk-scan';
import { analyzeShell } from './risk-shell.analyzer';
import { scanUnparsedShell } from './risk-shell-fallback.scanner';
import { analyzeSql, readSql } from './risk-sql.analyzer';

/** Texts longer than this are only pattern-checked: parsing them would blow the latency budget. */
const MAX_PARSED_TEXT = 256 * 1024;

/** Text that starts like an SQL statement (after comments and parentheses). */
const SQL_START =
  /^\s*\/\*!|^(?:\s|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/|\()*(?:select|insert|update|delete|drop|truncate|alter|create|with|replace|merge|upsert|grant|revoke|begin|start\s+transaction|commit|rollback|explain|analyze|vacuum|pragma|call|declare|lock|rename|use|show|describe|desc|set(?=\s+[^-+\s])|exec|execute|prepare|copy(?=[^;]*\bprogram\b)|do(?=\s+(?:language\s+\w+\s+)?[$']))\b/i;

/** MongoDB shell code as a database tool takes it (`db.users.drop()`, `db.getCollection('x').deleteMany({})`). */
const MONGO_START = /^\s*db\s*[.[]/;

/** `auto`: SQL when it starts like SQL and every statement parses; shell otherwise (or as well). */
function analyzeAuto(text: string, scan: RiskScan): void {
  if (MONGO_START.test(text)) scanInterpreterCode(text, 'mongo', scan);
  if (SQL_START.test(text) && analyzeSql(text, scan)) return;
  analyzeShell(text, scan);
}

/**
 * A schema's `sql` hint (set by whoever wrote the tool, an MCP server included) says how to read SQL, never that
 * nothing else runs: text that is not all SQL is read as shell too, so the hint cannot hide `rm -rf /`.
 */
function analyzeHintedSql(text: string, scan: RiskScan): void {
  if (!analyzeSql(text, scan)) analyzeShell(text, scan);
}

const ANALYZERS: RiskAnalyzers = {
  auto: analyzeAuto,
  shell: analyzeShell,
  sql: readSql,
  python: (text, scan) => scanInterpreterCode(text, 'python', scan),
  js: (text, scan) => scanInterpreterCode(text, 'js', scan),
  perl: (text, scan) => scanInterpreterCode(text, 'perl', scan),
  ruby: (text, scan) => scanInterpreterCode(text, 'ruby', scan),
  php: (text, scan) => scanInterpreterCode(text, 'php', scan),
  awk: (text, scan) => scanInterpreterCode(text, 'awk', scan),
  mongo: (text, scan) => scanInterpreterCode(text, 'mongo', scan),
  script: (text, scan) => scanInterpreterCode(text, 'script', scan),
};

/** False when {@link evaluateTextInto} would skip `text`: blank, or cleared by the pre-check. */
export function mayBeEvaluated(text: string): boolean {
  return text.trim() !== '' && mayBeRisky(text);
}

/**
 * Evaluates one text into `sink` (shared by the text and the arguments entry points), within `work` (the bounds of
 * the evaluation it is part of: one call's arguments share theirs); false when the pre-check skipped it.
 */
export function evaluateTextInto(
  text: string,
  hint: RiskHint,
  sink: RiskMatchSink,
  work: EvaluationWork = newEvaluationWork(),
): boolean {
  if (!mayBeEvaluated(text)) return false;
  const scan = new RiskScan(sink, ANALYZERS, 0, false, work);
  try {
    if (text.length > MAX_PARSED_TEXT) scanUnparsedShell(text, scan);
    else if (hint === 'sql') analyzeHintedSql(text, scan);
    else scan.read(text, hint === 'shell' ? 'shell' : 'auto');
  } catch {
    // A parser or walker gave up (stack depth on hostile nesting): what cannot be read counts as opaque.
    sink.add('opaque', text);
  }
  return true;
}

/**
 * Decides whether a command line or SQL text is destructive. `hint` says how to read it; `auto` (default)
 * reads text that starts like SQL as SQL and everything else as shell. Pure: no I/O, no state between calls.
 */
export function evaluateRiskText(text: string, hint: RiskHint = 'auto'): RiskVerdict {
  const sink = new RiskMatchSink();
  if (typeof text === 'string') evaluateTextInto(text, hint, sink);
  return sink.verdict();
}
