import { describeEachDialect } from '@test/support/test-database';
import { createKey, gatewayForSuite, sessionWithTool } from '@test/support/gateway-test-app';

/**
 * Closing a session that waits for a human (DELETE /sessions/{id} while INTERRUPTED) ends its pending request: the
 * review queue stopped listing it as PENDING only never (nobody could decide it any more: the session waits for
 * nothing), the pending gauge counted it, and retention kept the closed session for good because of it.
 */
describeEachDialect('closing a session with a pending HITL request', (dialect) => {
  const suite = gatewayForSuite(dialect);

  it('leaves no PENDING request behind, and records who closed it', async () => {
    const { gw } = suite;
    const runtime = await createKey(gw, 'acme', 'runtime');
    const { sessionId } = await sessionWithTool(gw, runtime, 'acme', { name: 'wipe_disk', sideEffect: 'HIGH_RISK' });
    const acted = await gw.http
      .post(`/api/v1/sessions/${sessionId}/act`)
      .set(runtime)
      .send({ iteration: 1, toolCalls: [{ id: 'c1', name: 'wipe_disk', arguments: { q: 'all' } }] })
      .expect(200);
    expect(acted.body.status).toBe('INTERRUPTED');
    const requestId = acted.body.hitlRequest.id as string;

    await gw.http.delete(`/api/v1/sessions/${sessionId}`).set(runtime).expect(200);

    const pending = await gw.http.get('/api/v1/admin/hitl?status=PENDING').set(gw.admin).expect(200);
    expect(pending.body.items.map((i: { id: string }) => i.id)).not.toContain(requestId);
    const all = await gw.http.get('/api/v1/admin/hitl').set(gw.admin).expect(200);
    const item = all.body.items.find((i: { id: string }) => i.id === requestId);
    expect(item).toMatchObject({ status: 'DECIDED', decision: 'REJECT' });
    expect(item.decidedBy).toMatch(/session closed/);
    const events = await gw.http.get(`/api/v1/sessions/${sessionId}/events`).set(runtime).expect(200);
    expect(events.body.items.map((e: { type: string }) => e.type)).toContain('hitl.decided');
    // An admin who still tries is told it was decided; nothing runs.
    const late = await gw.http
      .post(`/api/v1/admin/hitl/${requestId}/decision`)
      .set(gw.admin)
      .send({ decision: 'APPROVE', reviewer: 'alice' })
      .expect(409);
    expect(late.body.error.code).toBe('HITL_ALREADY_DECIDED');
  });
});
