import { UNKNOWN_FIELD_PROBLEM } from '@app/common/errors/validation';
import { createKey, gatewayForSuite, SHELL_TOOL_FIELDS, sessionWithTool } from '@test/support/gateway-test-app';
import { RecordingHttpServer } from '@test/executors/support/recording-http.server';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/**
 * The contract's errors say what happened *and how to fix it*: each answer below used to stop after the first half
 * ("No run x in session y."), leaving the caller to guess where the right id comes from.
 */
describe('error answers say how to fix the request', () => {
  const remote = new RecordingHttpServer();
  beforeAll(() => remote.start());
  afterAll(() => remote.stop());
  const suite = gatewayForSuite('sqlite', { OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
  let runtime: { Authorization: string };
  let tenantAdmin: { Authorization: string };
  let made: { toolId: string; agentId: string; sessionId: string };

  beforeAll(async () => {
    runtime = await createKey(suite.gw, 'acme', 'runtime');
    tenantAdmin = await createKey(suite.gw, 'acme', 'admin');
    made = await sessionWithTool(suite.gw, runtime, 'acme', {
      ...SHELL_TOOL_FIELDS,
      name: 'shell',
      endpoint: remote.url('/sh'),
      hitl: { approvalText: 'Runs a shell command' },
    });
  });

  const errorOf = async (res: { status: number; body: { error: { code: string; message: string } } }) => ({
    status: res.status,
    code: res.body.error.code,
    message: res.body.error.message,
  });

  it('a field the request does not take: remove it, the docs list the fields (a PATCH of what cannot change too)', async () => {
    const res = await suite.gw.http
      .patch(`/api/v1/admin/agents/${made.agentId}`)
      .set(tenantAdmin)
      .send({ tenantId: 'globex', colour: 'blue' })
      .expect(400);
    expect(res.body.error.details.fields).toEqual([
      { field: 'tenantId', problems: [UNKNOWN_FIELD_PROBLEM] },
      { field: 'colour', problems: [UNKNOWN_FIELD_PROBLEM] },
    ]);
    expect(res.body.error.message).toContain('remove it (the API docs at /docs list the fields it takes)');
  });

  it("an unknown agent's tool-specs: where agents are listed", async () => {
    const res = await suite.gw.http
      .post(`/api/v1/agents/${UNKNOWN}/tool-specs`)
      .set(runtime)
      .send({ userId: 'u1', permissions: [] });
    expect(await errorOf(res)).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      message: `No agent ${UNKNOWN} in your tenant; list agents with GET /api/v1/admin/agents.`,
    });
  });

  it('a tool result of a call that has none: which calls have one', async () => {
    const res = await suite.gw.http.get(`/api/v1/sessions/${made.sessionId}/tool-results/nope`).set(runtime);
    expect(await errorOf(res)).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      message:
        `No finished result for toolCallId nope in session ${made.sessionId}: only a call that finished ` +
        '(COMPLETED, FAILED or REJECTED) has one, not one PENDING_APPROVAL, NOT_RUN, running or of unknown outcome; ' +
        'use the toolCallId of a finished act result.',
    });
  });

  it('an unknown run: where run ids come from', async () => {
    const res = await suite.gw.http.get(`/api/v1/sessions/${made.sessionId}/runs/nope`).set(runtime);
    expect(await errorOf(res)).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      message: `No run nope in session ${made.sessionId}; use the runId that POST /api/v1/sessions/${made.sessionId}/messages answered.`,
    });
  });

  it('an unknown artifact: where artifact ids come from', async () => {
    const res = await suite.gw.http.get(`/api/v1/artifacts/${UNKNOWN}`).set(runtime);
    expect(await errorOf(res)).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      message: `No artifact ${UNKNOWN} in your tenant; use the artifactId that PUBLISH_FILE answered.`,
    });
  });

  it("unbinding a tool the agent does not have: where the agent's tools are", async () => {
    const res = await suite.gw.http.delete(`/api/v1/admin/agents/${made.agentId}/tools/${UNKNOWN}`).set(tenantAdmin);
    expect(await errorOf(res)).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      message: `Tool ${UNKNOWN} is not bound to agent ${made.agentId}; the agent's toolIds (GET /api/v1/admin/agents/${made.agentId}) are its bound tools.`,
    });
  });

  it("another tenant's capabilities: which tenant the key manages", async () => {
    const res = await suite.gw.http.get('/api/v1/admin/tenants/globex/capabilities').set(tenantAdmin);
    expect(await errorOf(res)).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      message: 'No tenant globex in your scope; your admin key manages tenant acme.',
    });
  });

  it('a decision on another call than the pending one, then on a request already decided: what to send instead', async () => {
    const acted = await suite.gw.http
      .post(`/api/v1/sessions/${made.sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'c1', name: 'shell', arguments: { command: 'rm -rf /' } }] })
      .expect(200);
    expect(acted.body.status).toBe('INTERRUPTED');
    const mismatch = await suite.gw.http
      .post(`/api/v1/sessions/${made.sessionId}/resume`)
      .set(runtime)
      .send({ clientMessageId: 'm1', toolCallId: 'c9', decision: 'REJECT' });
    expect(await errorOf(mismatch)).toEqual({
      status: 409,
      code: 'HITL_TOOL_CALL_MISMATCH',
      message: 'The pending request is about toolCallId c1, not c9: send toolCallId c1 (or leave it out) to decide it.',
    });

    const requestId = acted.body.hitlRequest.id as string;
    const decide = (decision: string) =>
      suite.gw.http
        .post(`/api/v1/admin/hitl/${requestId}/decision`)
        .set(tenantAdmin)
        .send({ decision, reviewer: 'alice' });
    await decide('REJECT').expect(200);
    const again = await decide('APPROVE');
    expect(await errorOf(again)).toEqual({
      status: 409,
      code: 'HITL_ALREADY_DECIDED',
      message: expect.stringMatching(
        /^Request \S+ was already decided: REJECT by alice \(key \S+\); nothing is left to decide on it: list the pending requests with GET \/api\/v1\/admin\/hitl\?status=PENDING\.$/,
      ),
    });
  });
});
