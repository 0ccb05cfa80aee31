import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { describeWithBubblewrap } from '@test/sandbox/sandbox-runner.fixture';
import { WorkspaceLocator } from '@app/modules/workspace/workspace.locator';
import { WorkspaceMountSources } from '@app/modules/workspace/workspace-mount.sources';
import { WorkspaceCommandRunner } from '@app/modules/workspace/workspace-command.runner';
import { SandboxRunner } from '@app/modules/sandbox/sandbox-runner.service';
import { Logger } from '@nestjs/common';
import { isFieldLine, type FieldLine } from '@app/common/logging/log-context';
import { skillMd, uploadJsonSkill } from '@test/support/skill-fixture';
import { FILE_TOOLS, workspaceRootForSuite, workspaceTenant, type WorkspaceTenant } from './workspace-test-kit';

const TOOLS = [...FILE_TOOLS, 'RUN_COMMAND'];

describeWithBubblewrap('RUN_COMMAND end to end (real bubblewrap)', () => {
  describeEachDialect('RUN_COMMAND through act', (dialect) => {
    const root = workspaceRootForSuite();
    const suite = gatewayForSuite(dialect, { WORKSPACE_ROOT: root, SANDBOX_TIMEOUT_MS: '5000' });
    let t: WorkspaceTenant;
    let sessionId: string;
    const run = (command: string, extra: Record<string, unknown> = {}) =>
      t.call(sessionId, 'RUN_COMMAND', { command, ...extra });

    beforeAll(async () => {
      t = await workspaceTenant(suite.gw, 't-cmd', TOOLS);
      sessionId = await t.newSession(['SANDBOX', 'FILE_ROOM']);
    });

    it('runs in /workspace: sees files the tools wrote, its writes are read back by READ_FILE', async () => {
      await t.call(sessionId, 'WRITE_FILE', { path: 'in.txt', content: 'hello' });
      const res = await run('cat in.txt; echo; pwd; echo made > out.txt; echo oops >&2');
      expect(res).toMatchObject({ status: 'COMPLETED', isError: false });
      expect(JSON.parse(res.content)).toEqual({
        exitCode: 0,
        stdout: 'hello\n/workspace\n',
        stderr: 'oops\n',
        truncated: false,
        durationMs: expect.any(Number),
      });
      const read = await t.call(sessionId, 'READ_FILE', { path: 'out.txt' });
      expect(JSON.parse(read.content).content).toBe('made\n');
    });

    it('a non-zero exit is COMPLETED with the code; a timeout is FAILED', async () => {
      const exit = await run('echo bye; exit 3');
      expect(exit.status).toBe('COMPLETED');
      expect(JSON.parse(exit.content)).toMatchObject({ exitCode: 3, stdout: 'bye\n' });
      // 2 s: the sandbox itself takes up to 0.5 s to start on a loaded 2-core machine, and 'started' must be printed.
      const slow = await run('echo started; sleep 30', { timeoutMs: 2_000 });
      expect(slow).toMatchObject({ status: 'FAILED', isError: true });
      expect(slow.content).toContain('timed out');
      expect(slow.content).toContain('started');
    });

    it('answers a command that waited while the session closed that the workspace is gone, naming no host path', async () => {
      // As a command queued behind DELETE /sessions/{id} finds it: the call resolved the workspace, the close removed it.
      const closing = await t.newSession(['SANDBOX', 'FILE_ROOM']);
      const locator = suite.gw.app.get(WorkspaceLocator);
      const owner = { tenantId: 't-cmd', sessionId: closing, dir: await locator.ensure('t-cmd', closing) };
      await locator.remove('t-cmd', closing);
      const signal = new AbortController().signal;
      const run = suite.gw.app
        .get(WorkspaceCommandRunner)
        .run(owner, 'echo hi', undefined, [], 'c-gone', signal, performance.now() + 10_000);
      await expect(run).rejects.toMatchObject({ code: 'WORKSPACE_UNAVAILABLE' });
      await expect(run).rejects.not.toThrow(root);
      expect(existsSync(owner.dir)).toBe(false);
      // No command started, so none finished: the stream has no command.finished without its command.started.
      const events = await suite.gw.http
        .get(`/api/v1/sessions/${closing}/events?limit=1000`)
        .set(t.runtime)
        .expect(200);
      expect(events.body.items.filter((e: { type: string }) => e.type.startsWith('command.'))).toEqual([]);
    });

    it('appends command.started and command.finished (exit code, duration, bytes)', async () => {
      const events = await suite.gw.http
        .get(`/api/v1/sessions/${sessionId}/events?limit=1000`)
        .set(t.runtime)
        .expect(200);
      const commands = events.body.items.filter((e: { type: string }) => e.type.startsWith('command.'));
      expect(commands.map((e: { type: string }) => e.type)).toEqual([
        'command.started',
        'command.finished',
        'command.started',
        'command.finished',
        'command.started',
        'command.finished',
      ]);
      expect(commands[0].data).toMatchObject({ command: expect.stringContaining('cat in.txt') });
      expect(commands[1].data).toMatchObject({
        outcome: 'EXITED',
        exitCode: 0,
        durationMs: expect.any(Number),
        stdoutBytes: 17,
        stderrBytes: 5,
        truncated: false,
      });
      expect(commands[3].data).toMatchObject({ exitCode: 3 });
      expect(commands[5].data).toMatchObject({ outcome: 'TIMED_OUT', exitCode: null });
    });

    it('answers a command bubblewrap could not start, and its command.finished, naming no host path; the log has why', async () => {
      const failing = await t.newSession(['SANDBOX', 'FILE_ROOM']);
      // A bubblewrap that cannot be executed, under WORKSPACE_ROOT: its error names that host path.
      const runner: unknown = suite.gw.app.get(SandboxRunner);
      const sandbox = runner as { host: { bwrapPath: string } };
      const real = sandbox.host;
      sandbox.host = { ...real, bwrapPath: join(root, 'no-such-bwrap') };
      const warns = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      let res: Awaited<ReturnType<WorkspaceTenant['call']>>;
      let logged: FieldLine[];
      try {
        res = await t.call(failing, 'RUN_COMMAND', { command: 'echo hi' });
      } finally {
        sandbox.host = real;
        logged = warns.mock.calls
          .map((call) => call[0] as unknown)
          .filter((line): line is FieldLine => isFieldLine(line) && line.msg.includes('sandboxed'));
        warns.mockRestore();
      }
      expect(res).toMatchObject({ status: 'FAILED', isError: true });
      expect(res.content).toContain('could not start the command');
      expect(res.content).not.toContain(root);
      const events = await suite.gw.http
        .get(`/api/v1/sessions/${failing}/events?limit=1000`)
        .set(t.runtime)
        .expect(200);
      const finished = events.body.items.find((e: { type: string }) => e.type === 'command.finished');
      expect(finished.data).toMatchObject({ outcome: 'ERROR', exitCode: null });
      expect(finished.data.reason).toContain('could not start the command');
      expect(JSON.stringify(finished.data)).not.toContain(root);
      // The operator's log says what failed, with the host paths named, not shown, and whose command it was.
      expect(logged).toEqual([
        expect.objectContaining({
          msg: expect.stringContaining('<WORKSPACE_ROOT>/no-such-bwrap'),
          requestId: expect.any(String),
          tenantId: 't-cmd',
          sessionId: failing,
          toolCallId: expect.any(String),
        }),
      ]);
      expect(JSON.stringify(logged)).not.toContain(root);
      // The sandbox itself is fine again: the next command runs.
      expect((await t.call(failing, 'RUN_COMMAND', { command: 'echo hi' })).status).toBe('COMPLETED');
    });

    it('a risky command interrupts for approval before it runs (the risk check covers RUN_COMMAND)', async () => {
      const res = await suite.gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(t.runtime)
        .send({
          iteration: 500,
          toolCalls: [{ id: 'risky-1', name: 'RUN_COMMAND', arguments: { command: 'touch ran.txt; rm -rf /' } }],
        })
        .expect(200);
      expect(res.body.status).toBe('INTERRUPTED');
      expect(res.body.hitlRequest).toMatchObject({ requestType: 'TOOL_APPROVAL', toolCallId: 'risky-1' });
      expect(res.body.results[0].status).toBe('PENDING_APPROVAL');
      const dir = suite.gw.app.get(WorkspaceLocator).dirOf('t-cmd', sessionId);
      expect(existsSync(join(dir, 'ran.txt'))).toBe(false);
      const events = await suite.gw.http
        .get(`/api/v1/sessions/${sessionId}/events?limit=1000`)
        .set(t.runtime)
        .expect(200);
      expect(
        events.body.items
          .filter((e: { type: string }) => e.type === 'command.started')
          .map((e: { data: { toolCallId: string } }) => e.data.toolCallId),
      ).not.toContain('risky-1');
    });

    it('keeps a token in a command line out of command.started (redacted like the tool log)', async () => {
      const token = 'ghp_0123456789abcdefghijklmnopqrstuvwxyz';
      const other = await t.newSession(['SANDBOX', 'FILE_ROOM']);
      const res = await t.call(other, 'RUN_COMMAND', { command: `echo "Authorization: Bearer ${token}" > /dev/null` });
      expect(res.status).toBe('COMPLETED');
      const events = await suite.gw.http.get(`/api/v1/sessions/${other}/events?limit=1000`).set(t.runtime).expect(200);
      const started = events.body.items.filter((e: { type: string }) => e.type === 'command.started').at(-1);
      expect(started.data.command).toContain('echo "Authorization: Bearer');
      expect(JSON.stringify(events.body)).not.toContain(token);
    });

    it('answers a command that nests folders too deep to measure with workspaceOverQuota; deleting them clears it', async () => {
      const deep = await t.newSession(['SANDBOX', 'FILE_ROOM']);
      const name = 'd'.repeat(250);
      const nest = `bash -c 'for i in $(seq 20); do mkdir ${name} && cd ${name} || exit 1; done; echo x > f'`;
      const made = await t.call(deep, 'RUN_COMMAND', { command: nest });
      expect(made.status).toBe('COMPLETED');
      expect(JSON.parse(made.content)).toMatchObject({ exitCode: 0 });
      expect(JSON.parse(made.content).workspaceOverQuota).toContain('nested too deep to measure');
      // The next command may grow no file until they are deleted.
      const grow = await t.call(deep, 'RUN_COMMAND', { command: 'echo more > grown.txt' });
      expect(JSON.parse(grow.content)).toMatchObject({ exitCode: 1 });
      expect(JSON.parse(grow.content).workspaceQuotaHit).toContain(
        'could write no file past 0 bytes, the room left under WORKSPACE_MAX_BYTES',
      );
      expect((await t.call(deep, 'DELETE_FILE', { path: name })).status).toBe('COMPLETED');
      const clean = await t.call(deep, 'RUN_COMMAND', { command: 'echo more > grown.txt' });
      expect(clean.status).toBe('COMPLETED');
      expect(JSON.parse(clean.content).workspaceOverQuota).toBeUndefined();
    });

    it('a symlink a command makes cannot be followed out by the file tools', async () => {
      const other = await t.newSession(['SANDBOX', 'FILE_ROOM']);
      const made = await t.call(other, 'RUN_COMMAND', { command: 'ln -s / escape && ln -s /etc/passwd pw && ls' });
      expect(JSON.parse(made.content).stdout).toBe('escape\npw\n');
      for (const path of ['escape/etc/passwd', 'pw']) {
        const res = await t.call(other, 'READ_FILE', { path });
        expect(res).toMatchObject({ status: 'FAILED' });
        expect(res.content).toContain('leads out of the workspace');
      }
    });

    it('shows the registered read-only mounts (the active skill) at /skills/<name>, read-only', async () => {
      const skillDir = workspaceRootForSuite();
      writeFileSync(join(skillDir, 'SKILL.md'), '# demo skill\n', { mode: 0o444 });
      chmodSync(skillDir, 0o555); // as SkillReleaseMaterializer leaves a release: readable by the sandbox user
      const withSkill = await t.newSession(['SANDBOX', 'FILE_ROOM']);
      suite.gw.app
        .get(WorkspaceMountSources)
        .register(async (owner) =>
          owner.sessionId === withSkill ? [{ hostPath: skillDir, sandboxPath: '/skills/demo' }] : [],
        );
      const res = await t.call(withSkill, 'RUN_COMMAND', {
        command: 'cat /skills/demo/SKILL.md; touch /skills/demo/new 2>/dev/null || echo read-only',
      });
      expect(JSON.parse(res.content)).toMatchObject({ exitCode: 0, stdout: '# demo skill\nread-only\n' });
      expect(existsSync(join(skillDir, 'new'))).toBe(false);
    });

    it('mounts the skill SKILL_CALL activated, that release, read-only at /skills/<name>', async () => {
      // The bound skill is the platform's; the tenant also has one of the same name, not bound: never mounted.
      const skill = await uploadJsonSkill(suite.gw, suite.gw.admin, {
        tenantId: null,
        skillContent: skillMd('csv-tools', 'Clean CSV files'),
        files: [{ path: 'scripts/count.sh', content: '#!/bin/sh\nwc -l < "$1"\n' }],
      });
      await uploadJsonSkill(suite.gw, suite.gw.admin, {
        tenantId: 't-cmd',
        skillContent: skillMd('csv-tools', 'The tenant copy'),
        files: [{ path: 'scripts/count.sh', content: '#!/bin/sh\necho tenant-copy\n' }],
      });
      const tools = await suite.gw.http.get('/api/v1/admin/tools?source=BUILTIN&pageSize=500').set(suite.gw.admin);
      const ids = tools.body.items
        .filter((tool: { name: string }) => [...TOOLS, 'SKILL_CALL'].includes(tool.name))
        .map((tool: { id: string }) => tool.id);
      await suite.gw.http
        .put(`/api/v1/admin/agents/${t.agentId}/tools`)
        .set(suite.gw.admin)
        .send({ toolIds: ids })
        .expect(200);
      await suite.gw.http
        .put(`/api/v1/admin/agents/${t.agentId}/skills`)
        .set(suite.gw.admin)
        .send({ skillIds: [skill.id] })
        .expect(200);
      const skilled = await t.newSession(['SANDBOX', 'FILE_ROOM']);
      const before = await t.call(skilled, 'RUN_COMMAND', { command: 'ls /skills 2>&1 || true' });
      expect(JSON.parse(before.content).stdout).not.toContain('csv-tools');
      expect((await t.call(skilled, 'SKILL_CALL', { skill: 'csv-tools' })).status).toBe('COMPLETED');
      await t.call(skilled, 'WRITE_FILE', { path: 'rows.csv', content: 'a\nb\nc\n' });
      const res = await t.call(skilled, 'RUN_COMMAND', {
        command:
          'head -2 /skills/csv-tools/SKILL.md; /skills/csv-tools/scripts/count.sh rows.csv; touch /skills/csv-tools/x 2>/dev/null || echo read-only',
      });
      expect(JSON.parse(res.content)).toMatchObject({ exitCode: 0, stdout: '---\nname: csv-tools\n3\nread-only\n' });

      // Unbound by an admin mid-session: no longer mounted, and the reminders no longer name it.
      await suite.gw.http
        .put(`/api/v1/admin/agents/${t.agentId}/skills`)
        .set(suite.gw.admin)
        .send({ skillIds: [] })
        .expect(200);
      const unbound = await t.call(skilled, 'RUN_COMMAND', { command: 'ls /skills 2>&1 || true' });
      expect(JSON.parse(unbound.content).stdout).not.toContain('csv-tools');
      const specs = await suite.gw.http
        .post(`/api/v1/agents/${t.agentId}/tool-specs`)
        .set(t.runtime)
        .send({ userId: 'u1', permissions: [], sessionId: skilled, capabilities: ['SANDBOX', 'FILE_ROOM'] })
        .expect(200);
      expect(specs.body.reminders).toEqual([]);
    });

    it('hides RUN_COMMAND at DEPENDENCIES for a session without SANDBOX', async () => {
      const filesOnly = await t.newSession(['FILE_ROOM']);
      const res = await t.call(filesOnly, 'RUN_COMMAND', { command: 'true' });
      expect(res).toMatchObject({ status: 'FAILED' });
      expect(res.content).toContain('DEPENDENCIES');
      expect(res.content).toContain('SANDBOX');
    });
  });

  describe('RUN_COMMAND within its call budget', () => {
    // SANDBOX_TIMEOUT_MS past the call's budget (TOOL_DEFAULT_TIMEOUT_MS): the command must end before the budget.
    const suite = gatewayForSuite('sqlite', {
      WORKSPACE_ROOT: workspaceRootForSuite(),
      SANDBOX_TIMEOUT_MS: '60000',
      TOOL_DEFAULT_TIMEOUT_MS: '4000',
    });

    it('ends a command before the call times out, and answers what it printed', async () => {
      const t = await workspaceTenant(suite.gw, 't-budget', TOOLS);
      const sessionId = await t.newSession(['SANDBOX', 'FILE_ROOM']);
      const started = Date.now();
      const slow = await t.call(sessionId, 'RUN_COMMAND', { command: 'echo started; sleep 30', timeoutMs: 30_000 });
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(slow).toMatchObject({ status: 'FAILED', isError: true, errorClass: 'COMMAND_TIMED_OUT' });
      expect(slow.content).toContain('the command timed out');
      expect(slow.content).toContain('started');
    });
  });
});

describeEachDialect('SANDBOX_DRIVER=none', (dialect) => {
  const suite = gatewayForSuite(dialect, { WORKSPACE_ROOT: workspaceRootForSuite(), SANDBOX_DRIVER: 'none' });

  it('refuses a session asking for SANDBOX with a 400 naming the reason; FILE_ROOM alone works', async () => {
    const t = await workspaceTenant(suite.gw, 't-nosbx', TOOLS);
    const res = await suite.gw.http
      .post('/api/v1/sessions')
      .set(t.runtime)
      .send({ agentId: t.agentId, userId: 'u1', permissions: [], capabilities: ['SANDBOX', 'FILE_ROOM'] })
      .expect(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.message).toContain('SANDBOX_DRIVER=none');
    const files = await t.newSession(['FILE_ROOM']);
    const hidden = await t.call(files, 'RUN_COMMAND', { command: 'true' });
    expect(hidden.content).toContain('SANDBOX');
  });
});
