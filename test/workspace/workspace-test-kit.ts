import type { WorkspaceFiles } from '@app/modules/workspace/workspace-files.service';
import { mkdtempSync } from 'node:fs';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { PassThrough } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKey, type TestGateway } from '@test/support/gateway-test-app';

/** A fresh WORKSPACE_ROOT for one suite (the gateway's env). */
export function workspaceRootForSuite(): string {
  return mkdtempSync(join(tmpdir(), 'gw-ws-'));
}

export interface WorkspaceTenant {
  runtime: { Authorization: string };
  agentId: string;
  /** A new session of the agent with these capabilities; returns its id. */
  newSession(capabilities?: string[]): Promise<string>;
  /** One act call with one tool call; returns the result. */
  call(
    sessionId: string,
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ status: string; content: string; isError: boolean }>;
}

const iterations = new Map<string, number>();
let callSeq = 0;

/** A tenant with a runtime key and an agent (policy ALLOW) bound to the named built-ins. */
export async function workspaceTenant(gw: TestGateway, tenantId: string, tools: string[]): Promise<WorkspaceTenant> {
  const runtime = await createKey(gw, tenantId);
  const agent = await gw.http
    .post('/api/v1/admin/agents')
    .set(gw.admin)
    .send({ tenantId, name: `ws-agent-${tenantId}`, sideEffectPolicy: 'ALLOW', maxIterations: 1000 })
    .expect(201);
  const all = (await gw.http.get('/api/v1/admin/tools?pageSize=500').set(gw.admin).expect(200)).body.items as Array<{
    id: string;
    name: string;
  }>;
  const toolIds = tools.map((name) => {
    const tool = all.find((t) => t.name === name);
    if (!tool) throw new Error(`no built-in ${name} in the registry`);
    return tool.id;
  });
  await gw.http.put(`/api/v1/admin/agents/${agent.body.id}/tools`).set(gw.admin).send({ toolIds }).expect(200);
  return {
    runtime,
    agentId: agent.body.id,
    async newSession(capabilities = ['FILE_ROOM']) {
      const res = await gw.http
        .post('/api/v1/sessions')
        .set(runtime)
        .send({ agentId: agent.body.id, userId: 'u1', permissions: [], capabilities })
        .expect(201);
      return res.body.id as string;
    },
    async call(sessionId, name, args) {
      const res = await gw.http
        .post(`/api/v1/sessions/${sessionId}/act`)
        .set(runtime)
        .send({ iteration: nextIteration(sessionId), toolCalls: [{ id: `c${++callSeq}`, name, arguments: args }] })
        .expect(200);
      return res.body.results[0];
    },
  };
}

export const FILE_TOOLS = ['LIST_FILES', 'READ_FILE', 'WRITE_FILE', 'EDIT_FILE', 'DELETE_FILE', 'PUBLISH_FILE'];

function nextIteration(sessionId: string): number {
  const next = (iterations.get(sessionId) ?? 0) + 1;
  iterations.set(sessionId, next);
  return next;
}

/**
 * Holds the next whole-file read of the workspace (EDIT_FILE's) once it has read: `hasRead` settles then, and the
 * read returns, letting the edit go on, only after `goOn()`.
 */
export function holdNextWholeRead(files: WorkspaceFiles): { hasRead: Promise<void>; goOn: () => void } {
  const read = files.readWhole.bind(files);
  let hasReadNow!: () => void;
  const hasRead = new Promise<void>((resolve) => (hasReadNow = resolve));
  let goOn!: () => void;
  const goesOn = new Promise<void>((resolve) => (goOn = resolve));
  jest.spyOn(files, 'readWhole').mockImplementationOnce(async (target) => {
    const bytes = await read(target);
    hasReadNow();
    await goesOn;
    return bytes;
  });
  return { hasRead, goOn };
}

/**
 * A chunked PUT of a workspace file to the gateway listening on `port`, whose body the test writes: the request (to
 * cut it), and its answer's status or the error of a connection that was closed.
 */
export function streamedUpload(
  port: number,
  auth: { Authorization: string },
  sessionId: string,
  path: string,
): { body: PassThrough; request: ClientRequest; answer: Promise<number | Error> } {
  const body = new PassThrough();
  let request!: ClientRequest;
  const answer = new Promise<number | Error>((resolve) => {
    request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'PUT',
        agent: false,
        path: `/api/v1/sessions/${sessionId}/files/content?path=${path}`,
        headers: { ...auth, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    request.on('error', resolve);
    body.pipe(request);
  });
  return { body, request, answer };
}
