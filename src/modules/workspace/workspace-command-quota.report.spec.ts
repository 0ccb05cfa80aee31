import { describeFileLimitHit, type CommandFileLimitRun } from './workspace-command-quota.report';

const file = (path: string, size: number) => ({ path, type: 'file' as const, size });

function run(overrides: Partial<CommandFileLimitRun>): CommandFileLimitRun {
  return {
    fileLimit: 100,
    setBy: 'WORKSPACE_MAX_BYTES',
    stderr: '',
    killedAtFileLimit: false,
    before: [],
    after: [],
    usedAfter: 0,
    maxBytes: 1000,
    ...overrides,
  };
}

describe('describeFileLimitHit', () => {
  it('says nothing of a command that hit no limit, though a file is as large as the limit', () => {
    expect(describeFileLimitHit(run({ before: [file('a', 500)], after: [file('a', 500)], usedAfter: 500 }))).toBe(
      undefined,
    );
  });

  it('says nothing of empty files a command made in a full workspace', () => {
    expect(describeFileLimitHit(run({ fileLimit: 0, after: [file('new', 0)], usedAfter: 1000 }))).toBe(undefined);
  });

  it('names SANDBOX_MAX_FILE_MB when it set the limit, and a stopped file it cannot find', () => {
    const hit = describeFileLimitHit(
      run({ setBy: 'SANDBOX_MAX_FILE_MB', stderr: "head: error writing '/tmp/x': File too large\n" }),
    );
    expect(hit).toBe(
      'File size limit hit: this command could write no file past SANDBOX_MAX_FILE_MB (100 bytes); the file it stopped is not in the workspace now (in /tmp, or deleted since); the workspace now holds 0 of 1000 bytes (1000 left); write the output in smaller files, or ask an operator to raise SANDBOX_MAX_FILE_MB.',
    );
  });

  it('names at most five files, then how many more', () => {
    const after = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((name) => file(name, 100));
    const hit = describeFileLimitHit(run({ after, usedAfter: 700 }));
    expect(hit).toContain('"e" (100 bytes) and 2 more stopped at 100 bytes and may be incomplete');
  });
});
