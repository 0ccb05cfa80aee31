import type { RiskLanguage, RiskScan } from './risk-scan';
import type { ShellWord } from './risk-shell-word';

/**
 * What a command reads on standard input, as far as the script shows it. Opaque input may name the `roots`
 * it lists (`find / -type f | ...`: paths under `/`) and the `producer` that writes it into the pipe (its source).
 */
export type ShellStdin =
  | { kind: 'none' }
  | { kind: 'text'; text: string; literal: boolean; substitutes: boolean; snippet: string }
  | { kind: 'opaque'; decoded: boolean; snippet: string; roots?: ShellWord[]; producer?: string };

/**
 * Commands one statement may run through wrappers (`sudo env nice timeout 1 rm ...`): each level re-reads the words
 * after it, so 20,000 stacked `sudo`s took seconds to minutes of CPU. No real command line nests this deep; past it
 * the command counts as opaque (it needs approval).
 */
export const MAX_WRAPPED_COMMANDS = 32;

/** What a command handler may use: where to report, the statement's source, its stdin, and how to run a nested command. */
export interface ShellCommandEnv {
  readonly scan: RiskScan;
  /** The source of the whole statement, used as the match snippet. */
  readonly snippet: string;
  stdin(): ShellStdin;
  /** True when the command runs once per item of a generated list (`find -exec`, `xargs` on unknown input). */
  readonly many?: boolean;
  /** The script's working directory when known (`cd /etc; ...`): relative paths are resolved against it. */
  readonly cwd?: string;
  /**
   * Analyzes another argv (`sudo rm ...`, `find -exec rm ...`); `withStdin` false when the wrapper consumes
   * stdin itself (xargs); `many` true when it runs over a generated list (kept for everything it runs in turn).
   */
  run(argv: ShellWord[], withStdin?: boolean, many?: boolean): void;
  /**
   * A file this script wrote before: its text (`echo ... > f`, `cat <<EOF > f`), null when its content is
   * unknown (`curl -o f`, `cmd > f`), undefined when the script did not write it.
   */
  fileText(path: string): string | null | undefined;
}

/** Checks one command; `args` excludes the command name. */
export type ShellCommandHandler = (args: ShellWord[], env: ShellCommandEnv, name: string) => void;

/** Words that turn encoded text back into code; piping their output into an interpreter is obfuscation. */
export const DECODER_PATTERN =
  /\bbase(?:64|32)\b(?:\s+\S+){0,4}?\s+(?:-d|-D|--decode)\b|\b(?:xxd|basenc)\b(?:\s+\S+){0,4}?\s+-r\b|\bopenssl\b(?:\s+\S+){0,6}?\s+(?:-d|base64)\b|\b(?:uudecode|rev|gunzip|zcat|bzcat|xzcat)\b|\b(?:b64decode|decodebytes|atob|fromCharCode|decode_base64)\b|\\x[0-9a-fA-F]{2}/;

/** Reports code that runs but cannot be read: `obfuscated` when a decoder built it, `opaque` otherwise. */
export function reportHidden(env: ShellCommandEnv, evidence: string, snippet = env.snippet): void {
  env.scan.report(DECODER_PATTERN.test(evidence) ? 'obfuscated' : 'opaque', snippet);
}

/** Reads a code argument (`bash -c WORD`, `python -c WORD`) in `language`. */
export function runCodeWord(word: ShellWord, language: RiskLanguage, env: ShellCommandEnv): void {
  if (!word.literal && (word.substitutes || word.literalLength === 0)) {
    reportHidden(env, word.raw);
    if (word.literalLength === 0) return;
  }
  env.scan.nested(word.value, language, env.many);
}

/** Reads what an interpreter gets on stdin (`curl ... | sh`, `psql <<EOF`) in `language`. */
export function runStdin(language: RiskLanguage, env: ShellCommandEnv): void {
  const stdin = env.stdin();
  if (stdin.kind === 'none') return;
  if (stdin.kind === 'opaque') {
    env.scan.report(stdin.decoded ? 'obfuscated' : 'opaque', stdin.snippet);
    return;
  }
  if (!stdin.literal && stdin.substitutes) reportHidden(env, stdin.text, stdin.snippet);
  env.scan.nested(stdin.text, language);
}

/** Runs a file the same script wrote earlier (`echo "rm -rf /" > x.sh; sh x.sh`); false when it did not write it. */
export function runWrittenFile(file: ShellWord, language: RiskLanguage, env: ShellCommandEnv): boolean {
  if (!file.literal) return false;
  const text = env.fileText(file.value);
  if (text === undefined) return false;
  if (text === null) env.scan.report('opaque', env.snippet);
  else env.scan.nested(text, language);
  return true;
}
