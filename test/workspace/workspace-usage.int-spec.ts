import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
// The module object itself (what the walk calls), so a spy on it is seen there.
import fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { walkWorkspace, workspaceUsage } from '@app/modules/workspace/workspace-usage';

/**
 * CPU time (user + system, every thread of this process: libuv's file reads too) `work` used, in ms: the cheapest of
 * three runs, as cpuTimedUnder takes it (the garbage collector's threads count too, and may be busy with earlier work).
 */
async function cpuMsOf<T>(work: () => Promise<T>): Promise<{ value: T; cpuMs: number }> {
  let cheapest: { value: T; cpuMs: number } | undefined;
  for (let run = 0; run < 3; run++) {
    const before = process.cpuUsage();
    const value = await work();
    const used = process.cpuUsage(before);
    const cpuMs = (used.user + used.system) / 1000;
    if (!cheapest || cpuMs < cheapest.cpuMs) cheapest = { value, cpuMs };
  }
  return cheapest!;
}

describe('workspace usage walk', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-usage-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops reading a folder past its limit: a folder of 100,000 files a command left costs what one of 2,000 does', async () => {
    // As `python3 -c 'for i in ...: open(f"f{i}", "w")'` in RUN_COMMAND leaves it (a million takes 25 s).
    const folderOf = (name: string, files: number): string => {
      const folder = join(dir, name);
      mkdirSync(folder);
      for (let i = 0; i < files; i++) closeSync(openSync(join(folder, `f${i}`), 'w'));
      return folder;
    };
    const crowded = folderOf('crowded', 100_000);
    const modest = folderOf('modest', 2_000);
    // Reading and sorting every name cost in proportion to the folder (6 s and 300 MB at a million, the event loop
    // held throughout), on every write, command and listing of the workspace: 5x the 2,000-file folder here at
    // 100,000 files, against about 1x now. Compared within one run, as a machine's load moves both alike.
    const { value: usage, cpuMs: crowdedMs } = await cpuMsOf(() => workspaceUsage(crowded, 1000));
    const { cpuMs: modestMs } = await cpuMsOf(() => workspaceUsage(modest, 1000));
    expect(usage).toMatchObject({ entries: 1000, truncated: true });
    expect(crowdedMs).toBeLessThan(2 * modestMs + 10);
  });

  it('never counts a folder past the limit as within it, though entries it read vanished before their lstat', async () => {
    const full = join(dir, 'full');
    mkdirSync(full);
    for (let i = 0; i < 6; i++) writeFileSync(join(full, `f${i}`), '');
    // Two of the names read are deleted meanwhile (DELETE_FILE runs beside a write's measure): four files are left.
    const gone = Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });
    const lstat = jest.spyOn(fsPromises, 'lstat').mockRejectedValueOnce(gone).mockRejectedValueOnce(gone);
    try {
      expect(await workspaceUsage(full, 3)).toMatchObject({ truncated: true });
    } finally {
      lstat.mockRestore();
    }
  });

  it('still lists and counts a folder within the limit whole, in name order', async () => {
    const small = join(dir, 'small');
    mkdirSync(small);
    for (const name of ['b.txt', 'a.txt', 'c.txt']) writeFileSync(join(small, name), name);
    mkdirSync(join(small, 'sub'));
    writeFileSync(join(small, 'sub', 'd.txt'), 'dd');
    expect(await walkWorkspace(small, '', true, 5)).toEqual({
      entries: [
        { path: 'a.txt', type: 'file', size: 5 },
        { path: 'b.txt', type: 'file', size: 5 },
        { path: 'c.txt', type: 'file', size: 5 },
        { path: 'sub', type: 'directory', size: 0 },
        { path: 'sub/d.txt', type: 'file', size: 2 },
      ],
      truncated: false,
    });
    expect(await workspaceUsage(small, 4)).toMatchObject({ entries: 4, truncated: true });
    expect(await workspaceUsage(small)).toEqual({ bytes: 17, entries: 5, truncated: false, tooDeep: undefined });
  });
});
