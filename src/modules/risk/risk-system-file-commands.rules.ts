import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import { OptionSpec, ParsedOptions, hasOption, optionValue, parseOptions } from './risk-shell-options';
import type { ShellWord } from './risk-shell-word';
import { BLOCK_DEVICE } from './risk-shell.syntax';
import { isBroadPath, isSystemPath, isSystemWord } from './risk-system-paths';

function overwrites(env: ShellCommandEnv): void {
  env.scan.report('system-file-overwrite', env.snippet);
}

function operandsOf(args: ShellWord[], spec: OptionSpec): { operands: ShellWord[]; opts: ParsedOptions } {
  const opts = parseOptions(args, spec);
  return { operands: [...opts.operands, ...opts.afterDashDash], opts };
}

/** Every operand is written (tee) or cut (truncate): one disk, or one system file, among them is enough. */
function writesOperands(spec: OptionSpec): ShellCommandHandler {
  return (args, env) => {
    const { operands } = operandsOf(args, spec);
    if (operands.some((w) => BLOCK_DEVICE.test(w.value))) env.scan.report('disk-wipe', env.snippet);
    else if (operands.some((w) => isSystemWord(w, env.cwd))) overwrites(env);
  };
}

/**
 * cp / mv / install / ln -f: the destination (last operand, or `-t DIR`) is replaced; mv also takes its
 * sources away, so moving the root, a top-level or home directory or a system file counts too.
 */
function copyLike(spec: OptionSpec, movesSources: boolean, needsForce = false): ShellCommandHandler {
  return (args, env, name) => {
    const { operands, opts } = operandsOf(args, spec);
    if (needsForce && !hasOption(opts, 'f', 'force')) return;
    const targetDir = optionValue(opts, 't', 'target-directory');
    const dest = targetDir ?? (operands.length > 1 ? operands[operands.length - 1] : undefined);
    // cp writes into an existing file: into a disk's device, over the disk (mv and ln replace the device node).
    if (name === 'cp' && dest && BLOCK_DEVICE.test(dest.value)) {
      env.scan.report('disk-wipe', env.snippet);
      return;
    }
    const sources = targetDir ? operands : operands.slice(0, -1);
    if ((dest && isSystemWord(dest, env.cwd)) || (movesSources && sources.some((w) => isBroadPath(w.value, env.cwd))))
      overwrites(env);
  };
}

/** `sed -i` edits its files in place (the first operand is the script unless -e / -f gave it). */
function sed(args: ShellWord[], env: ShellCommandEnv): void {
  const { operands, opts } = operandsOf(args, {
    withValue: 'efl',
    attachedValue: 'i',
    longWithValue: ['expression', 'file', 'line-length'],
  });
  if (!hasOption(opts, 'i', 'in-place')) return;
  const files =
    opts.values.has('e') || opts.values.has('f') || opts.long.has('expression') || opts.long.has('file')
      ? operands
      : operands.slice(1);
  if (files.some((w) => isSystemPath(w.value, env.cwd))) overwrites(env);
}

/** `wget -O FILE`, `curl -o FILE`: a download written over a file. */
function download(args: ShellWord[], env: ShellCommandEnv, name: string): void {
  const opts = parseOptions(
    args,
    name === 'wget'
      ? { withValue: 'OoaPeU', longWithValue: ['output-document', 'output-file'] }
      : {
          withValue: 'oHdXuAeTw',
          longWithValue: ['output', 'header', 'data', 'request', 'user', 'user-agent', 'referer', 'upload-file'],
        },
  );
  const file = name === 'wget' ? optionValue(opts, 'O', 'output-document') : optionValue(opts, 'o', 'output');
  if (file && isSystemPath(file.value, env.cwd)) overwrites(env);
}

/** `tar -x ... -C DIR`, `unzip ... -d DIR`: an archive unpacked over a system tree (or `/`). */
function unpack(args: ShellWord[], env: ShellCommandEnv, name: string): void {
  const tar = name === 'tar';
  // tar's first word may be a bundle of letters without a dash (`tar xzf a.tgz`).
  const words =
    tar && args[0] && /^[A-Za-z]+$/.test(args[0].value)
      ? [{ ...args[0], value: `-${args[0].value}` }, ...args.slice(1)]
      : args;
  const opts = parseOptions(
    words,
    tar ? { withValue: 'CfbTXKgLMNV', longWithValue: ['directory', 'file', 'exclude'] } : { withValue: 'dxP' },
  );
  if (tar && !hasOption(opts, 'x', 'extract', 'get')) return;
  const dir = tar ? optionValue(opts, 'C', 'directory') : optionValue(opts, 'd');
  if (dir && isSystemPath(dir.value, env.cwd)) overwrites(env);
}

/** `sort -o FILE`: the sorted lines written over FILE. */
function sortOutput(args: ShellWord[], env: ShellCommandEnv): void {
  const opts = parseOptions(args, {
    withValue: 'okStT',
    longWithValue: ['output', 'key', 'buffer-size', 'field-separator', 'temporary-directory', 'files0-from'],
  });
  const out = optionValue(opts, 'o', 'output');
  if (out && isSystemPath(out.value, env.cwd)) overwrites(env);
}

/**
 * gzip, bzip2, xz ... replace each file operand by its (de)compressed copy, unless told to keep it or to write to
 * stdout (zstd keeps it unless `--rm`).
 */
function compressor(keepsByDefault: boolean): ShellCommandHandler {
  return (args, env) => {
    const { operands, opts } = operandsOf(args, { withValue: 'S', longWithValue: ['suffix'] });
    if (hasOption(opts, 'cktl', 'stdout', 'to-stdout', 'keep', 'test', 'list')) return;
    if (keepsByDefault && !hasOption(opts, '', 'rm')) return;
    if (operands.some((w) => isSystemPath(w.value, env.cwd))) overwrites(env);
  };
}

/** `patch [-o OUT] [FILE]`: the patched text written over FILE (or OUT). */
function patch(args: ShellWord[], env: ShellCommandEnv): void {
  const { operands, opts } = operandsOf(args, {
    withValue: 'pdiorDFBYzVg',
    longWithValue: ['strip', 'directory', 'input', 'output', 'reject-file', 'ifdef', 'fuzz', 'prefix', 'suffix'],
  });
  const out = optionValue(opts, 'o', 'output') ?? operands[0];
  if (out && isSystemPath(out.value, env.cwd)) overwrites(env);
}

/** Commands that replace, cut or move files: checked against system paths. */
export const SYSTEM_FILE_COMMANDS: Record<string, ShellCommandHandler> = {
  tee: writesOperands({ longWithValue: ['output-error'] }),
  sponge: writesOperands({}),
  sort: sortOutput,
  gzip: compressor(false),
  gunzip: compressor(false),
  bzip2: compressor(false),
  bunzip2: compressor(false),
  xz: compressor(false),
  unxz: compressor(false),
  lzma: compressor(false),
  compress: compressor(false),
  zstd: compressor(true),
  patch,
  truncate: writesOperands({ withValue: 'sr', longWithValue: ['size', 'reference'] }),
  cp: copyLike({ withValue: 'St', longWithValue: ['target-directory', 'suffix'] }, false),
  install: copyLike(
    { withValue: 'gmoStT', longWithValue: ['group', 'mode', 'owner', 'suffix', 'target-directory'] },
    false,
  ),
  ln: copyLike({ withValue: 'St', longWithValue: ['target-directory', 'suffix'] }, false, true),
  mv: copyLike({ withValue: 'St', longWithValue: ['target-directory', 'suffix'] }, true),
  sed,
  wget: download,
  curl: download,
  tar: unpack,
  unzip: unpack,
};
