import { checkCommandVariable } from './risk-command-settings';
import type { ShellCommandEnv, ShellCommandHandler } from './risk-shell-command';
import { reportHidden, runCodeWord } from './risk-shell-command';
import { OptionSpec, hasOption, optionValue, parseOptions } from './risk-shell-options';
import { ShellWord, joinWords, literalWord } from './risk-shell-word';

/** A wrapper that runs the rest of its words as a command (`sudo -u x CMD ...`). */
function wraps(spec: OptionSpec, positionalBefore = 0): ShellCommandHandler {
  return (args, env) => {
    const inner = parseOptions(args, { ...spec, stopAtOperand: true }).rest.slice(positionalBefore);
    if (inner.length) env.run(inner);
  };
}

/** A command whose option carries a whole shell command string anywhere on its line (`su - bob -c "..."`). */
function runsStringOption(spec: OptionSpec, letter: string, longName: string): ShellCommandHandler {
  return (args, env) => {
    const code = optionValue(parseOptions(args, spec), letter, longName);
    if (code) runCodeWord(code, 'shell', env);
  };
}

/** A wrapper that joins its remaining words into one shell string (ssh, watch); a `--` before them ends its options. */
function runsJoinedWords(spec: OptionSpec, positionalBefore: number): ShellCommandHandler {
  return (args, env) => {
    const after = parseOptions(args, { ...spec, stopAtOperand: true }).rest.slice(positionalBefore);
    const words = after[0]?.value === '--' ? after.slice(1) : after;
    if (!words.length) return;
    runCodeWord(joinWords(words), 'shell', env);
  };
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function env(args: ShellWord[], envx: ShellCommandEnv): void {
  const opts = parseOptions(args, {
    withValue: 'uCS',
    longWithValue: ['unset', 'chdir', 'split-string'],
    stopAtOperand: true,
  });
  const split = optionValue(opts, 'S', 'split-string');
  if (split) {
    runCodeWord(joinWords([split, ...opts.rest]), 'shell', envx);
    return;
  }
  const first = opts.rest.findIndex((w) => !ASSIGNMENT.test(w.value));
  for (const assignment of opts.rest.slice(0, first < 0 ? opts.rest.length : first)) {
    const eq = assignment.value.indexOf('=');
    checkCommandVariable(assignment.value.slice(0, eq), { ...assignment, value: assignment.value.slice(eq + 1) }, envx);
  }
  if (first >= 0) envx.run(opts.rest.slice(first));
}

/** `flock [opts] LOCKFILE CMD ...` or `flock [opts] LOCKFILE -c "CMD"`. */
function flock(args: ShellWord[], env: ShellCommandEnv): void {
  const opts = parseOptions(args, {
    withValue: 'wEc',
    longWithValue: ['timeout', 'conflict-exit-code', 'command'],
    stopAtOperand: true,
  });
  const [, next, code] = opts.rest;
  if (next && (next.value === '-c' || next.value === '--command')) {
    if (code) runCodeWord(code, 'shell', env);
  } else if (opts.rest.length > 1) {
    env.run(opts.rest.slice(1));
  }
}

/** `parallel CMD ::: args` runs CMD once per argument. */
function parallel(args: ShellWord[], env: ShellCommandEnv): void {
  const opts = parseOptions(args, {
    withValue: 'jSI',
    longWithValue: ['jobs', 'sshlogin', 'joblog', 'results'],
    stopAtOperand: true,
  });
  const end = opts.rest.findIndex((w) => w.value.startsWith(':::'));
  const inner = end < 0 ? opts.rest : opts.rest.slice(0, end);
  if (inner.length) env.run(inner, false, true);
}

function command(args: ShellWord[], env: ShellCommandEnv): void {
  const opts = parseOptions(args, { stopAtOperand: true });
  if (!hasOption(opts, 'vV') && opts.rest.length) env.run(opts.rest);
}

/** docker's (podman's, nerdctl's) options before the subcommand that take a value (`docker -H ssh://prod exec ...`). */
const DOCKER_GLOBAL: OptionSpec = {
  withValue: 'Hcl',
  longWithValue: ['host', 'context', 'config', 'log-level', 'tlscacert', 'tlscert', 'tlskey'],
  stopAtOperand: true,
};
/** docker compose's options before its subcommand that take a value (`docker compose -f prod.yml exec ...`). */
const COMPOSE: OptionSpec = {
  withValue: 'fp',
  longWithValue: ['file', 'project-name', 'project-directory', 'env-file', 'profile', 'ansi', 'progress', 'parallel'],
  stopAtOperand: true,
};
/** `docker exec` (and `compose exec`, whose `--index N` picks a replica). */
const DOCKER_EXEC: OptionSpec = {
  withValue: 'euw',
  longWithValue: ['env', 'env-file', 'user', 'workdir', 'detach-keys', 'index'],
  stopAtOperand: true,
};
const DOCKER_RUN: OptionSpec = {
  withValue: 'cehlmpuvw',
  longWithValue: [
    'name',
    'network',
    'net',
    'volume',
    'env',
    'env-file',
    'publish',
    'workdir',
    'user',
    'entrypoint',
    'label',
    'mount',
    'memory',
    'cpus',
    'cpu-shares',
    'hostname',
    'add-host',
    'platform',
    'pull',
    'restart',
    'device',
    'cap-add',
    'cap-drop',
    'security-opt',
    'tmpfs',
    'ulimit',
    'log-driver',
    'log-opt',
    'dns',
    'ipc',
    'pid',
    'runtime',
    'shm-size',
    'gpus',
    'volumes-from',
    'link',
    'expose',
    'label-file',
    'cidfile',
    'stop-signal',
    'stop-timeout',
    'userns',
    'uts',
    'group-add',
    'health-cmd',
    'attach',
  ],
  stopAtOperand: true,
};

/**
 * `exec [opts] TARGET [opts] [--] CMD ...`, `run [opts] IMAGE CMD ...`: CMD runs inside TARGET (options between the
 * target and the command are the CLI's own: `kubectl exec POD -c app CMD`, `incus exec CT --env A=1 -- CMD`).
 */
function runInside(args: ShellWord[], spec: OptionSpec, env: ShellCommandEnv): void {
  const afterTarget = parseOptions(args, spec).rest.slice(1);
  env.run(parseOptions(afterTarget, spec).rest);
}

/** The command a container `exec` or `run` subcommand runs. */
function containerCommand(sub: ShellWord | undefined, args: ShellWord[], env: ShellCommandEnv): void {
  const spec = sub?.value === 'exec' ? DOCKER_EXEC : sub?.value === 'run' ? DOCKER_RUN : undefined;
  if (spec) runInside(args, spec, env);
}

/** `docker compose exec|run [opts] SERVICE CMD ...` (also docker-compose, podman-compose). */
function dockerCompose(args: ShellWord[], env: ShellCommandEnv): void {
  const [sub, ...rest] = parseOptions(args, COMPOSE).rest;
  containerCommand(sub, rest, env);
}

/** `docker exec [opts] CONTAINER CMD ...` and `docker run [opts] IMAGE CMD ...` (also `container exec`, `compose exec`). */
function docker(args: ShellWord[], env: ShellCommandEnv): void {
  const [verb, ...afterVerb] = parseOptions(args, DOCKER_GLOBAL).rest;
  if (verb?.value === 'compose') dockerCompose(afterVerb, env);
  else if (verb?.value === 'container') containerCommand(afterVerb[0], afterVerb.slice(1), env);
  else containerCommand(verb, afterVerb, env);
}

/** A CLI whose `exec` subcommand runs a command in its target: `lxc exec CT -- CMD`, `crictl exec -it ID CMD`. */
function execSubcommand(global: OptionSpec, exec: OptionSpec): ShellCommandHandler {
  return (args, env) => {
    const [verb, ...rest] = parseOptions(args, { ...global, stopAtOperand: true }).rest;
    if (verb?.value === 'exec') runInside(rest, { ...exec, stopAtOperand: true }, env);
  };
}

/** `npx [-p PKG] CMD ...` runs CMD; `npx -c 'CMD ...'` (`--call`) runs a shell command line. */
function npx(args: ShellWord[], env: ShellCommandEnv): void {
  const opts = parseOptions(args, { withValue: 'pc', longWithValue: ['package', 'call'], stopAtOperand: true });
  const call = optionValue(opts, 'c', 'call');
  if (call) runCodeWord(call, 'shell', env);
  if (opts.rest.length) env.run(opts.rest);
}

/**
 * A package manager whose `verbs` run a package's command (`pnpm exec CMD`, `pnpm dlx CMD`, `bundle exec CMD`);
 * its other subcommands (`pnpm remove -r x`) manage packages and run nothing of the line.
 */
function runsPackageCommand(verbs: string[], spec: OptionSpec): ShellCommandHandler {
  return (args, env) => {
    const [verb, ...rest] = parseOptions(args, { ...spec, stopAtOperand: true }).rest;
    if (verb && verbs.includes(verb.value)) env.run(parseOptions(rest, { ...spec, stopAtOperand: true }).rest);
  };
}

/** Options of pnpm and yarn that take the next word as their value. */
const NODE_PACKAGE_MANAGER: OptionSpec = { withValue: 'pC', longWithValue: ['package', 'filter', 'dir', 'cwd'] };

const lxc = execSubcommand({ longWithValue: ['project'] }, { longWithValue: ['env', 'user', 'group', 'cwd', 'mode'] });

/** `sudo -s` / `sudo -i` without a command start a shell that reads stdin. */
function sudo(args: ShellWord[], env: ShellCommandEnv): void {
  const opts = parseOptions(args, { ...SUDO, stopAtOperand: true });
  if (opts.rest.length) env.run(opts.rest);
  else if (hasOption(opts, 'si', 'shell', 'login')) env.run([literalWord('sh')]);
}

/** kubectl (and oc) options that take the next word as their value, global and of `exec`. */
const KUBECTL: OptionSpec = {
  withValue: 'ncfsv',
  longWithValue: [
    'namespace',
    'container',
    'filename',
    'context',
    'cluster',
    'user',
    'kubeconfig',
    'server',
    'token',
    'as',
    'as-group',
    'as-uid',
    'request-timeout',
    'pod-running-timeout',
    'cache-dir',
    'certificate-authority',
    'client-certificate',
    'client-key',
    'tls-server-name',
  ],
  stopAtOperand: true,
};

/**
 * `kubectl exec [opts] POD -- CMD ...`, the deprecated form without `--` (`kubectl exec POD CMD ...`, still run by
 * older clients) and `oc rsh POD CMD`: CMD runs in the pod; `kubectl run|debug ... -- CMD` runs CMD in a new one.
 */
function kubectl(args: ShellWord[], env: ShellCommandEnv): void {
  const [verb, ...afterVerb] = parseOptions(args, KUBECTL).rest;
  if (verb?.value === 'exec' || verb?.value === 'rsh') {
    runInside(afterVerb, KUBECTL, env);
  } else if (verb?.value === 'run' || verb?.value === 'debug') {
    // `kubectl run NAME --image=x -- CMD ...`: the words after `--` are what the new container runs.
    const dashDash = afterVerb.findIndex((w) => w.value === '--');
    if (dashDash >= 0) env.run(afterVerb.slice(dashDash + 1));
  }
}

/** xargs: runs its command with the words it reads on stdin appended (once, or once per item with -I / -n). */
export function xargs(args: ShellWord[], env: ShellCommandEnv): void {
  const opts = parseOptions(args, {
    withValue: 'adEILnPs',
    longWithValue: [
      'arg-file',
      'delimiter',
      'max-args',
      'max-procs',
      'max-chars',
      'max-lines',
      'replace',
      'process-slot-var',
    ],
    stopAtOperand: true,
  });
  const inner = opts.rest.length ? opts.rest : [literalWord('echo')];
  const input = env.stdin();
  if (input.kind === 'text') {
    // xargs appends what it reads (or puts it where -I's marker is): with known input, so can we.
    const marker = optionValue(opts, 'I', 'replace')?.value;
    if (!marker) {
      env.run([...inner, ...input.text.split(/\s+/).filter(Boolean).map(literalWord)], false);
      return;
    }
    for (const item of input.text.split('\n').filter(Boolean).slice(0, MAX_XARGS_ITEMS)) {
      env.run(
        inner.map((w) => ({ ...w, value: w.value.split(marker).join(item) })),
        false,
      );
    }
    return;
  }
  // Code read from input nobody here can see (a pipe, a file given by -a, the terminal).
  if (CODE_FROM_ARGS.test(inner.map((w) => w.value).join(' ')))
    reportHidden(env, input.kind === 'opaque' ? input.snippet : env.snippet);
  // Unknown input: the command runs over a list nobody here can see; `find / ... | xargs cmd` runs cmd over `/`,
  // and `LIST | xargs cmd` runs `cmd $(LIST)`, judged on what feeds it as the substituted form is.
  const marker = optionValue(opts, 'I', 'replace')?.value;
  const roots = input.kind === 'opaque' ? (input.roots ?? []) : [];
  const items = roots.length || input.kind !== 'opaque' || !input.producer ? roots : [substitutionOf(input.producer)];
  if (!items.length) env.run(inner, false, true);
  for (const item of items)
    env.run(marker ? inner.map((w) => (w.value === marker ? item : w)) : [...inner, item], false, true);
}

/** The word `$(CMD)`: what CMD prints, unknown here. */
function substitutionOf(command: string): ShellWord {
  const raw = `$(${command})`;
  return { value: raw, literal: false, literalLength: 0, substitutes: true, raw };
}

/** Input lines of xargs -I checked one by one (each runs the command once). */
const MAX_XARGS_ITEMS = 20;

/** A shell or interpreter whose code comes from the arguments xargs adds: `xargs sh -c '{}'`, `xargs -I{} bash -c "{}"`. */
const CODE_FROM_ARGS =
  /^(?:sudo\s+)?(?:\S*\/)?(?:(?:ba|z|da|k)?sh|python[\d.]*|perl|ruby|node)\s+(?:-\w+\s+)*-\w*[ce]\s+\S*(?:\{\}|\$@|\$1|\$\*)/;

/** `gcloud compute ssh VM --command CMD` (or `-- CMD`): CMD runs on the VM. */
function gcloud(args: ShellWord[], env: ShellCommandEnv): void {
  if (!args.some((w) => w.value === 'ssh')) return;
  const opts = parseOptions(args, { longWithValue: ['command'] });
  const code = optionValue(opts, 'command');
  if (code) runCodeWord(code, 'shell', env);
  if (opts.afterDashDash.length) runCodeWord(joinWords(opts.afterDashDash), 'shell', env);
}

/** `az vm run-command invoke ... --scripts 'CMD' ['CMD' ...]`: each script runs on the VM. */
function az(args: ShellWord[], env: ShellCommandEnv): void {
  const at = args.findIndex((w) => w.value === '--scripts');
  if (at < 0 || !args.some((w) => w.value === 'run-command')) return;
  const end = args.findIndex((w, i) => i > at && w.value.startsWith('--'));
  for (const script of args.slice(at + 1, end < 0 ? args.length : end)) runCodeWord(script, 'shell', env);
}

/** `sg [-] GROUP [-c] "CMD"` runs CMD with `/bin/sh -c`. */
function sg(args: ShellWord[], env: ShellCommandEnv): void {
  const words = args[0]?.value === '-' ? args.slice(1) : args;
  const code = words.slice(words[1]?.value === '-c' ? 2 : 1);
  if (code.length) runCodeWord(joinWords(code), 'shell', env);
}

const SUDO: OptionSpec = {
  withValue: 'ughpCDrtTUR',
  longWithValue: [
    'user',
    'group',
    'host',
    'prompt',
    'close-from',
    'chdir',
    'role',
    'type',
    'command-timeout',
    'other-user',
    'chroot',
  ],
};

/** Commands that run another command: privilege, scheduling, environment, remote (ssh, VMs) and container wrappers, xargs. */
export const WRAPPER_COMMANDS: Record<string, ShellCommandHandler> = {
  sudo,
  doas: wraps({ withValue: 'uC' }),
  env,
  nice: wraps({ withValue: 'n', longWithValue: ['adjustment'], signedNumbers: true }),
  ionice: wraps({ withValue: 'cnpPu', longWithValue: ['class', 'classdata', 'pid', 'pgid', 'uid'] }),
  timeout: wraps({ withValue: 'sk', longWithValue: ['signal', 'kill-after'] }, 1),
  command,
  builtin: wraps({}),
  exec: wraps({ withValue: 'a' }),
  nohup: wraps({}),
  time: wraps({ withValue: 'fo', longWithValue: ['format', 'output'] }),
  stdbuf: wraps({ withValue: 'ioe', longWithValue: ['input', 'output', 'error'] }),
  setsid: wraps({}),
  unbuffer: wraps({}),
  chronic: wraps({}),
  caffeinate: wraps({ withValue: 'tw' }),
  taskset: wraps({}, 1),
  chroot: wraps({ longWithValue: ['userspec', 'groups'] }, 1),
  busybox: wraps({}),
  toybox: wraps({}),
  flock,
  // Run a command in other namespaces, under a tracer, a scheduler or resource limits, or through a proxy.
  unshare: wraps({
    withValue: 'RwSG',
    longWithValue: [
      'propagation',
      'setgroups',
      'map-user',
      'map-group',
      'map-users',
      'map-groups',
      'root',
      'wd',
      'setuid',
      'setgid',
      'load-interp',
      'monotonic',
      'boottime',
    ],
  }),
  nsenter: wraps({
    withValue: 'tSG',
    attachedValue: 'muinpCUTrwW',
    longWithValue: ['target', 'setuid', 'setgid', 'env'],
  }),
  strace: wraps({
    withValue: 'abeEIoOpPsSuUX',
    longWithValue: ['trace', 'output', 'attach', 'user', 'env', 'signal', 'string-limit', 'trace-path', 'status'],
  }),
  ltrace: wraps({ withValue: 'aADeFlnopsuxX', longWithValue: ['output', 'library', 'config'] }),
  valgrind: wraps({}),
  'systemd-run': wraps({
    withValue: 'puEHM',
    longWithValue: [
      'property',
      'unit',
      'setenv',
      'host',
      'machine',
      'description',
      'slice',
      'uid',
      'gid',
      'nice',
      'working-directory',
      'service-type',
      'on-active',
      'on-boot',
      'on-startup',
      'on-unit-active',
      'on-unit-inactive',
      'on-calendar',
    ],
  }),
  run0: wraps({
    withValue: 'ugD',
    longWithValue: ['user', 'group', 'chdir', 'property', 'unit', 'setenv', 'nice', 'slice', 'description', 'machine'],
  }),
  pkexec: wraps({ longWithValue: ['user'] }),
  setpriv: wraps({
    longWithValue: [
      'reuid',
      'regid',
      'ruid',
      'euid',
      'rgid',
      'egid',
      'groups',
      'inh-caps',
      'ambient-caps',
      'bounding-set',
      'securebits',
      'pdeathsig',
      'selinux-label',
      'apparmor-profile',
      'landlock-access',
      'landlock-rule',
      'rlimit',
    ],
  }),
  fakeroot: wraps({ withValue: 'lsib', longWithValue: ['lib', 'faked'] }),
  firejail: wraps({}),
  eatmydata: wraps({}),
  numactl: wraps({
    withValue: 'iPpmNCw',
    longWithValue: [
      'interleave',
      'preferred',
      'preferred-many',
      'membind',
      'cpunodebind',
      'physcpubind',
      'weighted-interleave',
    ],
  }),
  prlimit: wraps({ withValue: 'op', attachedValue: 'cdefilmnqrstuvxy', longWithValue: ['output', 'pid'] }),
  cpulimit: wraps({ withValue: 'lpe', longWithValue: ['limit', 'pid', 'exe'] }),
  chrt: wraps({ withValue: 'TPD', longWithValue: ['sched-runtime', 'sched-period', 'sched-deadline'] }, 1),
  faketime: wraps({ longWithValue: ['date-prog'] }, 1),
  torsocks: wraps({ withValue: 'upaP', longWithValue: ['user', 'pass', 'address', 'port'] }),
  proxychains: wraps({ withValue: 'f' }),
  proxychains4: wraps({ withValue: 'f' }),
  sg,
  su: runsStringOption(
    { withValue: 'cgGsw', longWithValue: ['command', 'group', 'supp-group', 'shell', 'whitelist-environment'] },
    'c',
    'command',
  ),
  runuser: runsStringOption(
    { withValue: 'cgGsuw', longWithValue: ['command', 'group', 'supp-group', 'shell', 'user'] },
    'c',
    'command',
  ),
  script: runsStringOption(
    { withValue: 'cEIOT', longWithValue: ['command', 'echo', 'log-in', 'log-out', 'log-timing'] },
    'c',
    'command',
  ),
  parallel,
  watch: runsJoinedWords({ withValue: 'dnq', longWithValue: ['interval', 'differences', 'equexit'] }, 0),
  ssh: runsJoinedWords({ withValue: 'BbcDEeFIiJLlmOopQRSWw' }, 1),
  // Windows Subsystem for Linux: `wsl [-d DISTRO] [-u USER] [-e|--exec|--] CMD` runs CMD in the distribution.
  wsl: wraps({ withValue: 'du', longWithValue: ['distribution', 'user', 'cd', 'distribution-id', 'shell-type'] }),
  vagrant: runsStringOption({ withValue: 'c', longWithValue: ['command'] }, 'c', 'command'),
  gcloud,
  az,
  docker,
  podman: docker,
  nerdctl: docker,
  'docker-compose': dockerCompose,
  'podman-compose': dockerCompose,
  crictl: execSubcommand(
    { withValue: 'crit', longWithValue: ['config', 'runtime-endpoint', 'image-endpoint', 'timeout'] },
    { longWithValue: ['timeout'] },
  ),
  lxc,
  incus: lxc,
  kubectl,
  oc: kubectl,
  xargs,
  npx,
  bunx: wraps({ withValue: 'p', longWithValue: ['package'] }),
  npm: runsPackageCommand(['exec', 'x'], { withValue: 'pw', longWithValue: ['package', 'workspace', 'call'] }),
  pnpm: runsPackageCommand(['exec', 'dlx'], NODE_PACKAGE_MANAGER),
  yarn: runsPackageCommand(['exec', 'dlx'], NODE_PACKAGE_MANAGER),
  bundle: runsPackageCommand(['exec'], { longWithValue: ['gemfile'] }),
};
