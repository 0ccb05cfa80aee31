import fsPromises from 'node:fs/promises';
import { readdirSync, renameSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { WorkspacePathResolver } from '@app/modules/workspace/workspace-path.resolver';
import { FILE_TOOLS, workspaceRootForSuite, workspaceTenant, type WorkspaceTenant } from './workspace-test-kit';

/**
 * A command on another instance sharing the volume is not waited for: it can swap a folder for a symlink (`mv f f.old;
 * ln -s <elsewhere> f`) between the moment a file operation checked a path and the moment it uses it. What is used must
 * still be checked (as reads and writes check their descriptors), or the operation reaches another tenant's workspace.
 */
describe('a folder swapped for a symlink after its path was checked', () => {
  const suite = gatewayForSuite('sqlite', { WORKSPACE_ROOT: workspaceRootForSuite() });
  let attacker: WorkspaceTenant;
  let session: string;
  let dir: string;
  let victimDir: string;

  beforeAll(async () => {
    const locator = suite.gw.app.get(WorkspaceLocator);
    const victim = await workspaceTenant(suite.gw, 't-victim', FILE_TOOLS);
    const victimSession = await victim.newSession(['FILE_ROOM']);
    await victim.call(victimSession, 'WRITE_FILE', { path: 'sub/victim-plans.txt', content: 'secret' });
    victimDir = locator.dirOf('t-victim', victimSession);
    attacker = await workspaceTenant(suite.gw, 't-swapper', FILE_TOOLS);
    session = await attacker.newSession(['FILE_ROOM']);
    dir = locator.dirOf('t-swapper', session);
  });

  afterEach(() => jest.restoreAllMocks());

  /** The other instance's command: the workspace's `folder` becomes a link to the victim's workspace. */
  const swap = (folder: string) => {
    renameSync(join(dir, folder), join(dir, `${folder}.old`));
    symlinkSync(victimDir, join(dir, folder));
  };

  it("never lists another tenant's workspace through the swapped folder", async () => {
    await attacker.call(session, 'WRITE_FILE', { path: 'deep/sub/mine.txt', content: 'mine' });
    const check = WorkspacePathResolver.existing.bind(WorkspacePathResolver);
    jest.spyOn(WorkspacePathResolver, 'existing').mockImplementationOnce(async (...args) => {
      const checked = await check(...args);
      swap('deep');
      return checked;
    });
    // A folder above the one listed is swapped: the folder opened lies outside, and the listing is refused.
    const below = await suite.gw.http
      .get(`/api/v1/sessions/${session}/files?path=deep/sub&recursive=true`)
      .set(attacker.runtime);
    expect(JSON.stringify(below.body)).not.toContain('victim');
    expect(below.status).toBe(400);
    expect(below.body.error.code).toBe('WORKSPACE_PATH_INVALID');
    expect(below.body.error.message).toContain('it leads out of the workspace');
  });

  it("creates no folder in another tenant's workspace when a folder is swapped while a write creates those below it", async () => {
    await attacker.call(session, 'WRITE_FILE', { path: 'out/keep.txt', content: 'mine' });
    const mkdir = fsPromises.mkdir;
    // Swapped once the write has checked "out" and is about to create "planted" in it.
    jest.spyOn(fsPromises, 'mkdir').mockImplementation(async (path, options) => {
      if (basename(String(path)) === 'planted') swap('out');
      return mkdir(path, options);
    });
    const write = await attacker.call(session, 'WRITE_FILE', { path: 'out/planted/x.txt', content: 'x' });
    expect(write).toMatchObject({ status: 'FAILED', isError: true });
    expect(readdirSync(victimDir)).toEqual(['sub']);
  });
});
