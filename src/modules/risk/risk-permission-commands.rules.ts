import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import { OptionSpec, hasOption, parseOptions } from './risk-shell-options';
import type { ShellWord } from './risk-shell-word';
import { isBroadPath, isSystemPath } from './risk-system-paths';

/** A symbolic mode that looks like an option: chmod `-w`, `-rwx`; chattr `-i`, `-a`. */
const CHMOD_DASH_MODE = /^-[rwxXst]+$/;
const CHATTR_DASH_MODE = /^-[aAcCdDeFijmPsStTux]+$/;

/**
 * chmod / chown / chgrp / chattr (first operand: the mode, owner or attributes) and setfacl (`-m ACL`): recursive on the root,
 * a top-level or home directory or a system tree, or on any system file. Run over a generated list
 * (`find / -exec chmod 777 {} +`) counts as recursive. The owner's own ~/.ssh is not a system path here.
 */
function permissionCommand(spec: OptionSpec, ownerOperand: boolean, dashMode = CHMOD_DASH_MODE): ShellCommandHandler {
  return (args: ShellWord[], env: ShellCommandEnv) => {
    const modeWords = ownerOperand ? args.filter((w) => dashMode.test(w.value)) : [];
    const opts = parseOptions(
      args.filter((w) => !modeWords.includes(w)),
      spec,
    );
    const operands = [...opts.operands, ...opts.afterDashDash];
    const named = ownerOperand && !modeWords.length && !opts.long.has('reference');
    const targets = named ? operands.slice(1) : operands;
    const recursive = hasOption(opts, 'R', 'recursive') || env.many === true;
    if (
      targets.some((t) => (recursive ? isBroadPath(t.value, env.cwd, false) : isSystemPath(t.value, env.cwd, false)))
    ) {
      env.scan.report('permission-change', env.snippet);
    }
  };
}

/** Commands that change who may read, write or run files. */
export const PERMISSION_COMMANDS: Record<string, ShellCommandHandler> = {
  chmod: permissionCommand({ longWithValue: ['reference'] }, true),
  chown: permissionCommand({ longWithValue: ['reference', 'from'] }, true),
  chgrp: permissionCommand({ longWithValue: ['reference'] }, true),
  chattr: permissionCommand({ withValue: 'pv' }, true, CHATTR_DASH_MODE),
  setfacl: permissionCommand(
    { withValue: 'mMxX', longWithValue: ['modify', 'modify-file', 'remove', 'remove-file', 'set', 'set-file'] },
    false,
  ),
};
