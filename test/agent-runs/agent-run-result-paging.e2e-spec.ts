import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { skillMd, uploadJsonSkill } from '@test/support/skill-fixture';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/** 48,000 characters whose every position is recognisable: line n is n in 7 digits. */
const REPORT = Array.from({ length: 6000 }, (_, i) => `${String(i).padStart(7, '0')}\n`).join('');
const READ_ON = /\n\n\[characters (\d+)-(\d+) of (\d+); read on with (\{.*\})\]$/;

describeEachDialect('an agent run pages large results and files', (dialect) => {
  const suite = gatewayForSuite(dialect, AGENT_LOOP_ENV);
  const fx = new AgentLoopFixture(() => suite.gw);

  beforeAll(() => fx.start());
  afterAll(() => fx.stop());

  it('answers a page of the largest limit whole, with the note that says where to read on', async () => {
    const report = await fx.tool('daily_report', { httpMethod: 'GET', parameters: { type: 'object', properties: {} } });
    fx.remote.handler = (_req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end(REPORT);
    };
    const agent = await fx.agent([report.id]);
    const sessionId = await fx.session(agent.id);
    fx.model.script(
      agent.model,
      { toolCalls: [{ id: 'c1', name: 'daily_report', arguments: '{}' }] },
      {
        toolCalls: [
          { id: 'p1', name: 'READ_TOOL_RESULT', arguments: '{"toolCallId":"c1","offset":20000,"limit":20000}' },
        ],
      },
      { text: 'Read.' },
    );

    await fx.send(sessionId, 'm1', "Summarise today's report").expect(200);

    // The default inline limit (20,000) shows the head and says where the rest is.
    const [head, page] = (await fx.messages(sessionId)).filter((m) => m.role === 'tool').map((m) => m.content);
    expect(head).toContain('Call READ_TOOL_RESULT with {"toolCallId":"c1","offset":20000} to read more.');
    // The page the model asked for is not cut in its turn: it reads on from where the page ends, in c1.
    expect(page).not.toContain('[truncated');
    const [, from, to, total, args] = READ_ON.exec(page)!;
    expect([Number(from), Number(total)]).toEqual([20000, REPORT.length]);
    expect(page.slice(0, page.length - READ_ON.exec(page)![0].length)).toBe(REPORT.slice(20000, Number(to)));
    expect(JSON.parse(args)).toEqual({ toolCallId: 'c1', offset: Number(to) });
  });

  /** The page a run's model read with `call` (READ_FILE or SKILL_CALL with a path) of REPORT, as JSON it can parse. */
  const pageRead = async (
    agent: { id: string; model: string },
    capabilities: string[],
    call: { name: string; arguments: string },
  ) => {
    const session = await suite.gw.http
      .post('/api/v1/sessions')
      .set(fx.runtime)
      .send({ agentId: agent.id, userId: 'u1', permissions: [], capabilities })
      .expect(201);
    if (capabilities.includes('FILE_ROOM'))
      await suite.gw.http
        .put(`/api/v1/sessions/${session.body.id}/files/content?path=report.txt`)
        .set(fx.runtime)
        .set('content-type', 'application/octet-stream')
        .send(Buffer.from(REPORT))
        .expect(201);
    fx.model.script(agent.model, { toolCalls: [{ id: 'f1', ...call }] }, { text: 'Read.' });
    await fx.send(session.body.id, 'm1', 'Read the report').expect(200);
    const [answer] = (await fx.messages(session.body.id)).filter((m) => m.role === 'tool');
    expect(answer.content).not.toContain('[truncated');
    return JSON.parse(answer.content) as { offset: number; hasMore: boolean; content: string };
  };

  // JSON writes each newline as two characters: 18,000 characters of 8-character lines are 20,250 of JSON.
  it('answers READ_FILE of a page longer as JSON than the inline limit as a shorter page whole', async () => {
    const ids = await fx.builtinToolIds();
    const page = await pageRead(await fx.agent([ids.READ_FILE]), ['FILE_ROOM'], {
      name: 'READ_FILE',
      arguments: '{"path":"report.txt","offset":8,"limit":18000}',
    });

    expect(page).toMatchObject({ offset: 8, hasMore: true });
    expect(page.content.length).toBeGreaterThan(15_000);
    expect(page.content).toBe(REPORT.slice(8, 8 + page.content.length));
  });

  it("answers SKILL_CALL's page of a skill file longer as JSON than the inline limit as a shorter page whole", async () => {
    const ids = await fx.builtinToolIds();
    const skill = await uploadJsonSkill(suite.gw, suite.gw.admin, {
      tenantId: fx.tenantId,
      skillContent: skillMd('daily-report', 'Read the daily report'),
      files: [{ path: 'references/report.txt', content: REPORT }],
    });
    const agent = await fx.agent([ids.SKILL_CALL]);
    await suite.gw.http
      .put(`/api/v1/admin/agents/${agent.id}/skills`)
      .set(suite.gw.admin)
      .send({ skillIds: [skill.id] })
      .expect(200);
    const page = await pageRead(agent, ['SANDBOX'], {
      name: 'SKILL_CALL',
      arguments: '{"skill":"daily-report","path":"references/report.txt","limit":20000}',
    });

    expect(page).toMatchObject({ offset: 0, hasMore: true });
    expect(page.content.length).toBeGreaterThan(15_000);
    expect(page.content).toBe(REPORT.slice(0, page.content.length));
  });
});
