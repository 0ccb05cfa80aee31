import { closeSync, type Dir, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
// The module object itself (what the walk calls), so a spy on it is seen there.
import fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { walkWorkspace, workspaceUsage } from '@app/modules/workspace/workspace-usage';

/**
 * Counts the names the walk takes from folders it opens (what readNames reads), passing the real folder through.
 * A count, not a time: how far the walk reads is what makes a crowded folder cheap, and a count holds on a loaded machine.
 */
function countNamesRead(): { read: () => number; restore: () => void } {
  const realOpendir = fsPromises.opendir.bind(fsPromises);
  let read = 0;
  const spy = jest.spyOn(fsPromises, 'opendir').mockImplementation(async (path, options) => {
    const folder = await realOpendir(path, options);
    return {
      async *[Symbol.asyncIterator]() {
        // Leaving this loop (the walk stops) closes the real folder too.
        for await (const entry of folder) {
          read++;
          yield entry;
        }
      },
    } as unknown as Dir;
  });
  return { read: () => read, restore: () => spy.mockRestore() };
}

describe('workspace usage walk', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-usage-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stops reading a folder past its limit: of a folder of 20,000 files a command left, it reads one name past it', async () => {
    // As `python3 -c 'for i in ...: open(f"f{i}", "w")'` in RUN_COMMAND leaves it (a million takes 25 s). Reading
    // and sorting every name cost in proportion to the folder (6 s and 300 MB at a million, the event loop held
    // throughout), on every write, command and listing of the workspace.
    const crowded = join(dir, 'crowded');
    mkdirSync(crowded);
    for (let i = 0; i < 20_000; i++) closeSync(openSync(join(crowded, `f${i}`), 'w'));
    const names = countNamesRead();
    try {
      expect(await workspaceUsage(crowded, 1000)).toMatchObject({ entries: 1000, truncated: true });
      expect(names.read()).toBe(1001);
    } finally {
      names.restore();
    }
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
    const walk = await walkWorkspace(small, '', true, 5);
    expect(walk).toEqual({
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
    expect(await workspaceUsage(small)).toEqual({
      bytes: 17,
      entries: 5,
      truncated: false,
      tooDeep: undefined,
      walked: walk.entries,
    });
  });
});
