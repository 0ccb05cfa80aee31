import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';
import { AGENT_LOOP_ENV, AgentLoopFixture } from './support/agent-loop.fixture';

/** 48,000 characters whose every position is recognisable: line n is n in 7 digits. */
const REPORT = Array.from({ length: 6000 }, (_, i) => `${String(i).padStart(7, '0')}\n`).join('');
const READ_ON = /\n\n\[characters (\d+)-(\d+) of (\d+); read on with (\{.*\})\]$/;

describeEachDialect('an agent run pages a large tool result with READ_TOOL_RESULT', (dialect) => {
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
});
