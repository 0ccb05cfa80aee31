import { GatewayProcess } from '@test/support/gateway-process';
import { findFreePort } from '@test/support/free-port';

const PASSWORD = 'Db@Pass-w0rd-secret';

/** What a gateway that could not start printed, and how it exited (GatewayProcess.start's error names both). */
async function failedStart(env: Record<string, string>, databaseUrl: string): Promise<string> {
  const failure = await GatewayProcess.start({ databaseUrl, env, startTimeoutMs: 60_000 }).then(
    async (gateway) => {
      await gateway.stop();
      throw new Error('the gateway started');
    },
    (err: Error) => err.message,
  );
  expect(failure).toContain('exited during start-up (code 1,');
  return failure.slice(failure.indexOf('\n') + 1);
}

describe('a gateway whose database cannot be reached at start (LOG_FORMAT=json)', () => {
  it('exits 1 with one JSON error line naming DATABASE_URL, without the password', async () => {
    const closedPort = await findFreePort();
    const output = await failedStart(
      { LOG_FORMAT: 'json' },
      `mysql://gw:${encodeURIComponent(PASSWORD)}@127.0.0.1:${closedPort}/gateway`,
    );
    expect(output).not.toContain(encodeURIComponent(PASSWORD));
    expect(output).not.toContain('w0rd-secret');
    const lines = output.split('\n').filter((l) => l.trim().length > 0);
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    const errors = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].msg).toMatch(
      /^Cannot open the database at mysql:\/\/gw:\*\*\*@127\.0\.0\.1:\d+\/gateway: .*DATABASE_URL/,
    );
  });
});
