import { WorkspaceGate } from './workspace.gate';

describe('WorkspaceGate', () => {
  const gate = new WorkspaceGate();
  /** Runs `kind` work in `dir` that logs its start and end and finishes when `release` is called. */
  function hold(dir: string, kind: 'command' | 'files', name: string, log: string[]) {
    let release!: () => void;
    const done = gate.run(dir, kind, async () => {
      log.push(`${name} in`);
      await new Promise<void>((resolve) => (release = resolve));
      log.push(`${name} out`);
    });
    return { done, release: () => release() };
  }
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('lets work of one kind run side by side and holds the other kind until it is done', async () => {
    const log: string[] = [];
    const read1 = hold('/w', 'files', 'read1', log);
    const read2 = hold('/w', 'files', 'read2', log);
    const command = hold('/w', 'command', 'command', log);
    await tick();
    expect(log).toEqual(['read1 in', 'read2 in']);
    read1.release();
    await tick();
    expect(log).toEqual(['read1 in', 'read2 in', 'read1 out']);
    read2.release();
    await tick();
    expect(log.slice(-2)).toEqual(['read2 out', 'command in']);
    command.release();
    await Promise.all([read1.done, read2.done, command.done]);
  });

  it('serves in arrival order: a waiting command holds back file work that comes after it', async () => {
    const log: string[] = [];
    const first = hold('/w', 'files', 'first', log);
    const command = hold('/w', 'command', 'command', log);
    const late = hold('/w', 'files', 'late', log);
    await tick();
    expect(log).toEqual(['first in']);
    first.release();
    await tick();
    expect(log).toEqual(['first in', 'first out', 'command in']);
    command.release();
    await tick();
    expect(log.slice(-2)).toEqual(['command out', 'late in']);
    late.release();
    await Promise.all([first.done, command.done, late.done]);
  });

  it('keeps workspaces apart, and lets go when the work throws', async () => {
    const log: string[] = [];
    const command = hold('/a', 'command', 'command-a', log);
    await expect(gate.run('/b', 'files', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await gate.run('/b', 'files', async () => log.push('files-b'));
    expect(log).toEqual(['command-a in', 'files-b']);
    command.release();
    await command.done;
  });
});
