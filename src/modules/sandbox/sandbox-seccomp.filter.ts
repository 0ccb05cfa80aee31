/**
 * A seccomp filter (classic BPF, the format bubblewrap's `--seccomp FD` reads) that makes a short list of
 * system calls fail with EPERM: the kernel interfaces a shell command has no use for and that carry most
 * sandbox escapes (ptrace, bpf, perf_event_open, io_uring, userfaultfd, keyrings, mounts, namespaces, module
 * and kexec loading). Everything else is allowed; a call from another ABI (i386, x32) kills the process.
 */
const DENIED = [
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'keyctl',
  'add_key',
  'request_key',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'mount',
  'umount2',
  'pivot_root',
  'open_tree',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  'unshare',
  'setns',
  'swapon',
  'swapoff',
  'reboot',
  'acct',
  'quotactl',
  'open_by_handle_at',
  'name_to_handle_at',
  'syslog',
  'vhangup',
] as const;

type Syscall = (typeof DENIED)[number];

/** Numbers per architecture (x86_64: asm/unistd_64.h; arm64: asm-generic/unistd.h). */
const ARCHES: Record<string, { audit: number; x32Guard: boolean; nr: Record<Syscall, number> }> = {
  x64: {
    audit: 0xc000003e,
    x32Guard: true,
    nr: {
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      mount: 165,
      umount2: 166,
      pivot_root: 155,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      mount_setattr: 442,
      unshare: 272,
      setns: 308,
      swapon: 167,
      swapoff: 168,
      reboot: 169,
      acct: 163,
      quotactl: 179,
      open_by_handle_at: 304,
      name_to_handle_at: 303,
      syslog: 103,
      vhangup: 153,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    x32Guard: false,
    nr: {
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
      io_uring_setup: 425,
      io_uring_enter: 426,
      io_uring_register: 427,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
      open_tree: 428,
      move_mount: 429,
      fsopen: 430,
      fsconfig: 431,
      fsmount: 432,
      fspick: 433,
      mount_setattr: 442,
      unshare: 97,
      setns: 268,
      swapon: 224,
      swapoff: 225,
      reboot: 142,
      acct: 89,
      quotactl: 60,
      open_by_handle_at: 265,
      name_to_handle_at: 264,
      syslog: 116,
      vhangup: 58,
    },
  },
};

const LD_ABS_W = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_KILL_PROCESS = 0x80000000;
const RET_ERRNO_EPERM = 0x00050000 | 1;
const RET_ALLOW = 0x7fff0000;
const X32_SYSCALL_BIT = 0x40000000;

/** Names of the calls the filter refuses. */
export const SANDBOX_DENIED_SYSCALLS: readonly string[] = DENIED;

/** The filter for this CPU architecture, or undefined where the numbers are not known (no filter then). */
export function buildSeccompFilter(arch: string = process.arch): Buffer | undefined {
  const table = ARCHES[arch];
  if (!table) return undefined;
  const program: [code: number, jt: number, jf: number, k: number][] = [
    [LD_ABS_W, 0, 0, 4], // seccomp_data.arch
    [JEQ_K, 1, 0, table.audit],
    [RET_K, 0, 0, RET_KILL_PROCESS],
    [LD_ABS_W, 0, 0, 0], // seccomp_data.nr
  ];
  if (table.x32Guard) program.push([JGE_K, 0, 1, X32_SYSCALL_BIT], [RET_K, 0, 0, RET_KILL_PROCESS]);
  for (const name of DENIED) program.push([JEQ_K, 0, 1, table.nr[name]], [RET_K, 0, 0, RET_ERRNO_EPERM]);
  program.push([RET_K, 0, 0, RET_ALLOW]);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k, i * 8 + 4);
  });
  return bytes;
}
