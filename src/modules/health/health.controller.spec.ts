import type { DataSource } from 'typeorm';
import type { FastifyReply } from 'fastify';
import { HEALTH_DB_TIMEOUT_MS, HealthController } from './health.controller';

// The probe waits HEALTH_DB_TIMEOUT_MS of real time (AbortSignal.timeout).
jest.setTimeout(HEALTH_DB_TIMEOUT_MS + 10_000);

/** A MySQL data source whose `SELECT 1` never answers: a server that hangs, or a pool with every connection taken. */
const hangingDatabase = {
  options: { type: 'mysql' },
  query: () => new Promise(() => undefined),
} as unknown as DataSource;

describe('HealthController', () => {
  it('answers 503 db down once the database has not answered within HEALTH_DB_TIMEOUT_MS', async () => {
    const reply = { code: jest.fn() };
    const answer = new HealthController(hangingDatabase).health(reply as unknown as FastifyReply);
    await expect(answer).resolves.toEqual({ status: 'degraded', db: 'down' });
    expect(reply.code).toHaveBeenCalledWith(503);
  });
});
