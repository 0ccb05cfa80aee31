import { DATABASE_RESET_SCRIPTS } from './risk-database-reset-commands.rules';
import type { RiskLanguage } from './risk-scan';
import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import { reportHidden, runCodeWord, runStdin, runWrittenFile } from './risk-shell-command';
import { OptionSpec, parseOptions } from './risk-shell-options';
import { ShellWord, joinWindowsWords, joinWords, windowsPath } from './risk-shell-word';
import { isSystemPath } from './risk-system-paths';
import { plainPowerShell } from './risk-windows-commands.rules';

/**
 * What to do with the script operand of an interpreter that got no inline code:
 * none → it reads stdin; `-` or /dev/stdin → stdin; <(...) → code built at run time; a file → not inspected.
 */
function runScriptOperand(script: ShellWord | undefined, language: RiskLanguage, env: ShellCommandEnv): void {
  if (!script || script.value === '-' || /^\/dev\/(?:stdin|fd\/0)$|^\/proc\/self\/fd\/0$/.test(script.value)) {
    runStdin(language, env);
  } else if (!script.literal && script.substitutes) {
    reportHidden(env, script.raw);
  } else {
    runWrittenFile(script, language, env);
  }
}

/**
 * An interpreter with getopt options where some letters / long names carry inline code; `inPlace`: `-i`
 * edits the file operands in place (perl -pi, ruby -i), so a system file among them is overwritten.
 */
function interpreter(
  language: RiskLanguage,
  spec: OptionSpec,
  codeKeys: string[],
  stopKeys: string[] = [],
  inPlace = false,
): ShellCommandHandler {
  return (args, env) => {
    const opts = parseOptions(args, { ...spec, stopAtOperand: true });
    if (inPlace && opts.short.has('i') && opts.rest.some((w) => isSystemPath(w.value, env.cwd)))
      env.scan.report('system-file-overwrite', env.snippet);
    const codes = codeKeys.flatMap((key) => opts.values.get(key) ?? []);
    if (codes.length) {
      for (const code of codes) runCodeWord(code, language, env);
      return;
    }
    if (stopKeys.some((key) => opts.values.has(key) || opts.short.has(key))) return;
    runScriptOperand(opts.rest[0], language, env);
    // `python manage.py flush`, `php artisan db:wipe`: a framework's script is read as the command it is.
    const script = opts.rest[0]?.value;
    if (script && DATABASE_RESET_SCRIPTS.has(script.slice(script.lastIndexOf('/') + 1))) env.run(opts.rest);
  };
}

/** sh, bash, zsh ...: `-c` makes the first operand the command string. */
function shell(args: ShellWord[], env: ShellCommandEnv): void {
  const opts = parseOptions(args, {
    withValue: 'oO',
    longWithValue: ['rcfile', 'init-file'],
    stopAtOperand: true,
    signedNumbers: true,
  });
  // `--rcfile F` / `--init-file F`: F runs first in an interactive shell.
  for (const file of [...(opts.values.get('rcfile') ?? []), ...(opts.values.get('init-file') ?? [])])
    runScriptOperand(file, 'shell', env);
  if (opts.short.has('c')) {
    if (opts.rest[0]) runCodeWord(opts.rest[0], 'shell', env);
    return;
  }
  runScriptOperand(opts.short.has('s') ? undefined : opts.rest[0], 'shell', env);
}

function evalBuiltin(args: ShellWord[], env: ShellCommandEnv): void {
  if (args.length) runCodeWord(joinWords(args), 'shell', env);
}

/** `trap 'CMD' EXIT` runs CMD later. */
function trap(args: ShellWord[], env: ShellCommandEnv): void {
  const code = args[0]?.value === '--' ? args[1] : args[0];
  if (code && args.length > 1 && !code.value.startsWith('-')) runCodeWord(code, 'shell', env);
}

/** at / batch read the commands to schedule on stdin (or from -f FILE). */
function at(args: ShellWord[], env: ShellCommandEnv): void {
  const file = parseOptions(args, { withValue: 'fqt' }).values.get('f')?.[0];
  if (file) runScriptOperand(file, 'shell', env);
  else runStdin('shell', env);
}

function source(args: ShellWord[], env: ShellCommandEnv): void {
  if (args[0]) runScriptOperand(args[0], 'shell', env);
}

/**
 * awk programs can run commands: system("..."), print ... | "sh". gawk also takes the program from `-e` / `--source`,
 * and `-i inplace` (an include) makes it edit its file operands in place.
 */
function awk(args: ShellWord[], env: ShellCommandEnv): void {
  const opts = parseOptions(args, {
    withValue: 'fvFiEel',
    longWithValue: ['file', 'assign', 'field-separator', 'include', 'exec', 'source', 'load'],
    stopAtOperand: true,
  });
  const sources = [...(opts.values.get('e') ?? []), ...(opts.values.get('source') ?? [])];
  const fromFile = ['f', 'file', 'E', 'exec'].some((key) => opts.values.has(key));
  const program = sources.length || fromFile ? undefined : opts.rest[0];
  for (const code of program ? [program] : sources) runCodeWord(code, 'awk', env);
  const includes = [...(opts.values.get('i') ?? []), ...(opts.values.get('include') ?? [])];
  const files = program ? opts.rest.slice(1) : opts.rest;
  if (includes.some((w) => /^inplace(?:\.awk)?$/.test(w.value)) && files.some((w) => isSystemPath(w.value, env.cwd)))
    env.scan.report('system-file-overwrite', env.snippet);
}

/** powershell / pwsh: -Command runs the rest of the line, -EncodedCommand runs base64. */
function powershell(args: ShellWord[], env: ShellCommandEnv): void {
  for (let i = 0; i < args.length; i++) {
    const flag = plainPowerShell(args[i].value).toLowerCase();
    if (/^[-/]e(?:c|nc\w*)?$/.test(flag)) {
      env.scan.report('obfuscated', env.snippet);
      return;
    }
    if (/^[-/]f(?:ile)?$/.test(flag)) {
      // `-File F` after the same text downloaded F runs unknown code.
      if (args[i + 1]) runWrittenFile({ ...args[i + 1], value: windowsPath(args[i + 1]) }, 'shell', env);
      return;
    }
    if (
      /^[-/](?:executionpolicy|ep|ex|windowstyle|w|version|v|inputformat|if|outputformat|of|o|psconsolefile|configurationname|workingdirectory|wd|settingsfile|custompipename)$/.test(
        flag,
      )
    ) {
      i++;
      continue;
    }
    const inline = /^[-/]c(?:o(?:m(?:m(?:a(?:n(?:d)?)?)?)?)?)?$/.test(flag);
    if (inline || !flag.startsWith('-')) {
      const code = joinWindowsWords(args.slice(inline ? i + 1 : i));
      if (code.raw) runCodeWord({ ...code, value: plainPowerShell(code.value) }, 'shell', env);
      return;
    }
  }
}

/** cmd /c "..." and cmd /k "...". */
function cmd(args: ShellWord[], env: ShellCommandEnv): void {
  const at = args.findIndex((w) => /^\/[ck]$/i.test(w.value));
  if (at >= 0 && args.length > at + 1) runCodeWord(joinWindowsWords(args.slice(at + 1)), 'shell', env);
}

function deno(args: ShellWord[], env: ShellCommandEnv): void {
  const operands = parseOptions(args, { stopAtOperand: true }).rest;
  if (operands[0]?.value === 'eval' && operands[1]) runCodeWord(operands[1], 'js', env);
  if (operands[0]?.value === 'run')
    runScriptOperand(operands.find((w, i) => i > 0 && !w.value.startsWith('-')) ?? operands[1], 'js', env);
}

const python = interpreter('python', { withValue: 'cmWX' }, ['c'], ['m']);
const node = interpreter(
  'js',
  {
    withValue: 'eprC',
    longWithValue: ['eval', 'print', 'require', 'import', 'loader', 'experimental-loader', 'env-file', 'conditions'],
  },
  ['e', 'p', 'eval', 'print'],
);
const perl = interpreter(
  'perl',
  { withValue: 'eEI', attachedValue: 'iMmxCdD', attachedDigits: '0l' },
  ['e', 'E'],
  [],
  true,
);
const ruby = interpreter('ruby', { withValue: 'erICE', attachedValue: 'iFx', attachedDigits: '0TW' }, ['e'], [], true);
const php = interpreter(
  'php',
  { withValue: 'rfdcz', longWithValue: ['run', 'file', 'define', 'php-ini'] },
  ['r', 'run'],
  ['f', 'file'],
);

/** Other script languages with inline code: what they hand to a shell (`os.execute`, `system`, `run`) is read. */
const lua = interpreter('script', { withValue: 'el' }, ['e']);
const rscript = interpreter('script', { withValue: 'e' }, ['e']);
const julia = interpreter(
  'script',
  { withValue: 'eELJCtp', longWithValue: ['eval', 'print', 'load', 'sysimage', 'project'] },
  ['e', 'E', 'eval', 'print'],
);
const osascript = interpreter('script', { withValue: 'els' }, ['e']);
const groovy = interpreter('script', { withValue: 'eD' }, ['e']);

/** Shells and script interpreters whose inline code (or stdin) is read recursively. */
export const INTERPRETER_COMMANDS: Record<string, ShellCommandHandler> = {
  sh: shell,
  eval: evalBuiltin,
  trap,
  at,
  batch: at,
  awk,
  powershell,
  pwsh: powershell,
  cmd,
  source,
  '.': source,
  python,
  node,
  bun: node,
  deno,
  perl,
  ruby,
  php,
  lua,
  luajit: lua,
  rscript,
  r: rscript,
  julia,
  osascript,
  groovy,
};
