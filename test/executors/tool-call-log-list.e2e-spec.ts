import { createKey, gatewayForSuite } from '@test/support/gateway-test-app';
import { describeEachDialect } from '@test/support/test-database';
import { ToolCallLogService } from '@app/modules/executors/tool-call-log/tool-call-log.service';

/** `GET /admin/tool-calls`: the tool log read the one way it is written (raw SQL, columns from the entity). */
describeEachDialect('admin tool-call list', (dialect) => {
  const suite = gatewayForSuite(dialect);
  let acmeAdmin: { Authorization: string };

  beforeAll(async () => {
    acmeAdmin = await createKey(suite.gw, 'acme', 'admin');
    const log = suite.gw.app.get(ToolCallLogService);
    for (let i = 0; i < 5; i++) {
      for (const tenantId of ['acme', 'globex']) {
        log.record({
          tenantId,
          sessionId: `00000000-0000-4000-8000-00000000000${i % 2}`,
          toolName: i < 3 ? 'lookup' : 'write_note',
          status: i === 4 ? 'FAILED' : 'COMPLETED',
          entry: 'ACT',
          arguments: { q: `${tenantId}-${i}`, password: 'hunter2' },
          attempts: 1,
          durationMs: i,
          content: `result ${i}`,
        });
      }
    }
    await log.flush();
  });

  const list = async (auth: { Authorization: string }, query: string) =>
    (await suite.gw.http.get(`/api/v1/admin/tool-calls${query}`).set(auth).expect(200)).body;

  it("shows a tenant admin only its tenant's rows, paged with the full total", async () => {
    type Row = { tenantId: string; status: string; durationMs: number; resultChars: number; createdAt: string };
    const pages = [];
    for (const page of [1, 2, 3]) pages.push(await list(acmeAdmin, `?pageSize=2&page=${page}`));
    expect(pages.map((p) => p.total)).toEqual([5, 5, 5]);
    expect(pages.map((p) => p.items.length)).toEqual([2, 2, 1]);
    const rows = pages.flatMap((p) => p.items as Array<Row & { arguments: { q: string; password: string } }>);
    expect(rows.map((r) => r.arguments.q).sort()).toEqual(['acme-0', 'acme-1', 'acme-2', 'acme-3', 'acme-4']);
    const failed = rows.find((r) => r.status === 'FAILED')!;
    expect(failed).toMatchObject({ tenantId: 'acme', durationMs: 4, resultChars: 8 });
    expect(failed.arguments.password).not.toBe('hunter2');
    expect(new Date(failed.createdAt).getTime()).toBeGreaterThan(0);
  });

  it('filters by tool, status and session, and the platform admin sees every tenant', async () => {
    expect((await list(acmeAdmin, '?toolName=write_note')).total).toBe(2);
    expect((await list(acmeAdmin, '?toolName=write_note&status=FAILED')).total).toBe(1);
    expect((await list(acmeAdmin, '?sessionId=00000000-0000-4000-8000-000000000001')).total).toBe(2);
    expect((await list(suite.gw.admin, '?toolName=lookup')).total).toBe(6);
  });

  it('refuses a status no row can have with a 400 naming the statuses (an empty page read as "no such calls")', async () => {
    const res = await suite.gw.http.get('/api/v1/admin/tool-calls?status=completed').set(acmeAdmin).expect(400);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: {
        fields: [
          {
            field: 'status',
            problems: [
              'status must be one of the following values: COMPLETED, FAILED, REJECTED, PENDING_APPROVAL, UNKNOWN_OUTCOME',
            ],
          },
        ],
      },
    });
  });
});
