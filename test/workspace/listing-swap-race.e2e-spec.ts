import { renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { WorkspacePathResolver } from '@app/modules/workspace/workspace-path.resolver';
import { FILE_TOOLS, workspaceRootForSuite, workspaceTenant } from './workspace-test-kit';

/**
 * A command on another instance sharing the volume is not waited for: it can swap a folder for a symlink between the
 * moment a listing checked the folder's path and the moment it reads the folder. What is read must still be checked
 * (as reads and writes check their descriptors), or the listing shows the names and sizes of another tenant's files.
 */
describe('listing a folder swapped for a symlink after its path was checked', () => {
  const suite = gatewayForSuite('sqlite', { WORKSPACE_ROOT: workspaceRootForSuite() });

  afterEach(() => jest.restoreAllMocks());

  it("never lists another tenant's workspace through the swapped folder", async () => {
    const locator = suite.gw.app.get(WorkspaceLocator);
    const victim = await workspaceTenant(suite.gw, 't-victim', FILE_TOOLS);
    const victimSession = await victim.newSession(['FILE_ROOM']);
    await victim.call(victimSession, 'WRITE_FILE', { path: 'sub/victim-plans.txt', content: 'secret' });
    const victimDir = locator.dirOf('t-victim', victimSession);

    const attacker = await workspaceTenant(suite.gw, 't-swapper', FILE_TOOLS);
    const session = await attacker.newSession(['FILE_ROOM']);
    await attacker.call(session, 'WRITE_FILE', { path: 'deep/sub/mine.txt', content: 'mine' });
    const dir = locator.dirOf('t-swapper', session);
    /** The other instance's command, run once the next listing has checked its path: `mv f f.old; ln -s <victim> f`. */
    const swapAfterCheck = (folder: string) => {
      const check = WorkspacePathResolver.existing.bind(WorkspacePathResolver);
      jest.spyOn(WorkspacePathResolver, 'existing').mockImplementationOnce(async (...args) => {
        const checked = await check(...args);
        renameSync(join(dir, folder), join(dir, `${folder}.old`));
        symlinkSync(victimDir, join(dir, folder));
        return checked;
      });
    };
    const list = (path: string) =>
      suite.gw.http.get(`/api/v1/sessions/${session}/files?path=${path}&recursive=true`).set(attacker.runtime);

    // A folder above the one listed is swapped: the folder opened lies outside, and the listing is refused.
    swapAfterCheck('deep');
    const below = await list('deep/sub');
    expect(JSON.stringify(below.body)).not.toContain('victim');
    expect(below.status).toBe(400);
    expect(below.body.error.code).toBe('WORKSPACE_PATH_INVALID');
    expect(below.body.error.message).toContain('it leads out of the workspace');
  });
});
