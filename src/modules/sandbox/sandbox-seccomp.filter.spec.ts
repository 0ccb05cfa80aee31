import { buildSeccompFilter, SANDBOX_DENIED_SYSCALLS } from './sandbox-seccomp.filter';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const KILL = 0x80000000;

/** Runs the classic-BPF program the way the kernel does for one call (only the opcodes the filter uses). */
function verdict(program: Buffer, arch: number, nr: number): number {
  const data = [nr, arch];
  let acc = 0;
  for (let pc = 0; pc * 8 < program.length; pc++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) acc = data[k / 4];
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unexpected opcode ${code}`);
  }
  throw new Error('the program fell off its end');
}

describe('buildSeccompFilter', () => {
  const X86_64 = 0xc000003e;
  const x64 = buildSeccompFilter('x64')!;

  it('refuses the listed calls with EPERM (x86_64 numbers)', () => {
    for (const nr of [101, 250, 321, 298, 425, 165, 272, 308]) expect(verdict(x64, X86_64, nr)).toBe(EPERM);
    expect(SANDBOX_DENIED_SYSCALLS).toContain('io_uring_setup');
  });

  it('allows ordinary calls (read, write, openat, clone, execve, fork)', () => {
    for (const nr of [0, 1, 257, 56, 59, 57, 435]) expect(verdict(x64, X86_64, nr)).toBe(ALLOW);
  });

  it('kills a call from another ABI: i386 through int 0x80, or x32', () => {
    expect(verdict(x64, 0x40000003, 1)).toBe(KILL);
    expect(verdict(x64, X86_64, 0x40000000 + 1)).toBe(KILL);
  });

  it('has arm64 numbers too, and no filter for an architecture it does not know', () => {
    const arm = buildSeccompFilter('arm64')!;
    expect(verdict(arm, 0xc00000b7, 117)).toBe(EPERM); // ptrace
    expect(verdict(arm, 0xc00000b7, 64)).toBe(ALLOW); // write
    expect(buildSeccompFilter('riscv64')).toBeUndefined();
  });
});
