import { Test } from '@nestjs/testing';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { AuthContext } from '@app/common/auth/auth-context';
import { RiskDetector } from './risk-detector';
import { RiskEvaluateController } from './risk-evaluate.controller';
import { RiskEvaluateRequestDto } from './risk-evaluate.dto';
import { RISK_TOOL_SCHEMA_LOOKUP } from './risk-tool-schema.lookup';

const admin: AuthContext = { keyId: 'k1', role: 'admin', tenantId: 'acme' };

function body(plain: object): RiskEvaluateRequestDto {
  return plainToInstance(RiskEvaluateRequestDto, plain);
}

describe('RiskEvaluateController', () => {
  describe('wiring', () => {
    it('resolves without a schema lookup provider', async () => {
      const moduleRef = await Test.createTestingModule({
        controllers: [RiskEvaluateController],
        providers: [RiskDetector],
      }).compile();
      await expect(
        moduleRef.get(RiskEvaluateController).evaluate(admin, body({ text: 'git reset --hard' })),
      ).resolves.toMatchObject({ risky: true });
    });

    it('uses the schema lookup provided under RISK_TOOL_SCHEMA_LOOKUP', async () => {
      const lookup = jest.fn().mockResolvedValue({ properties: { q: { format: 'sql' } } });
      const moduleRef = await Test.createTestingModule({
        controllers: [RiskEvaluateController],
        providers: [RiskDetector, { provide: RISK_TOOL_SCHEMA_LOOKUP, useValue: lookup }],
      }).compile();
      await moduleRef
        .get(RiskEvaluateController)
        .evaluate(admin, body({ toolName: 'sql', arguments: { q: 'select 1' } }));
      expect(lookup).toHaveBeenCalledWith('sql', 'acme');
    });
  });

  describe('evaluate', () => {
    it('evaluates text', async () => {
      const controller = new RiskEvaluateController(new RiskDetector());
      await expect(controller.evaluate(admin, body({ text: 'git push --force' }))).resolves.toEqual({
        risky: true,
        rules: [{ rule: 'force-push', match: 'git push --force' }],
      });
    });

    it('reads text with the given hint', async () => {
      const controller = new RiskEvaluateController(new RiskDetector());
      await expect(
        controller.evaluate(admin, body({ text: 'set x = 1; delete from t', hint: 'sql' })),
      ).resolves.toMatchObject({ risky: true });
      await expect(controller.evaluate(admin, body({ text: 'DELETE FROM t', hint: 'shell' }))).resolves.toMatchObject({
        risky: true,
      });
    });

    it("applies the tool's schema hints, looked up for the caller's tenant", async () => {
      const lookup = jest
        .fn()
        .mockResolvedValue({ type: 'object', properties: { q: { type: 'string', 'x-risk': 'sql' } } });
      const controller = new RiskEvaluateController(new RiskDetector(), lookup);
      const result = await controller.evaluate(
        admin,
        body({ toolName: 'run_sql', arguments: { q: '/* nightly */ update t set a = 0' } }),
      );
      expect(lookup).toHaveBeenCalledWith('run_sql', 'acme');
      expect(result).toEqual({
        risky: true,
        rules: [{ rule: 'unscoped-update', match: 'update t set a = 0', path: 'q' }],
      });
    });

    it('evaluates arguments without a schema when no lookup is provided or the tool is unknown', async () => {
      const args = { steps: ['ls', 'rm -rf /srv'] };
      const expected = { risky: true, rules: [{ rule: 'recursive-delete', match: 'rm -rf /srv', path: 'steps[1]' }] };
      await expect(
        new RiskEvaluateController(new RiskDetector()).evaluate(admin, body({ toolName: 'x', arguments: args })),
      ).resolves.toEqual(expected);
      const unknownTool = new RiskEvaluateController(new RiskDetector(), jest.fn().mockResolvedValue(undefined));
      await expect(unknownTool.evaluate(admin, body({ toolName: 'x', arguments: args }))).resolves.toEqual(expected);
    });

    it('does not look a schema up for arguments sent without a tool name', async () => {
      const lookup = jest.fn();
      await new RiskEvaluateController(new RiskDetector(), lookup).evaluate(admin, body({ arguments: { a: 'ls' } }));
      expect(lookup).not.toHaveBeenCalled();
    });
  });
});

describe('RiskEvaluateRequestDto', () => {
  async function problems(plain: object): Promise<string[]> {
    const errors = await validate(body(plain), { whitelist: true, forbidNonWhitelisted: true });
    return errors.flatMap((e) => Object.values(e.constraints ?? {}));
  }

  it.each([
    { text: 'ls' },
    { text: 'ls', hint: 'shell' },
    { arguments: {} },
    { toolName: 'run', arguments: { cmd: 'ls' } },
  ])('accepts %j', async (plain) => {
    await expect(problems(plain)).resolves.toEqual([]);
  });

  it('requires text or arguments', async () => {
    await expect(problems({})).resolves.toContain('send exactly one of text or arguments');
    await expect(problems({ toolName: 'run' })).resolves.toContain('send exactly one of text or arguments');
  });

  it('refuses both text and arguments', async () => {
    await expect(problems({ text: 'ls', arguments: {} })).resolves.toContain('send exactly one of text or arguments');
  });

  it.each([
    ['a non-string text', { text: 42 }, 'text must be a string'],
    ['arguments that are an array', { arguments: ['rm'] }, 'arguments must be an object'],
    ['an unknown hint', { text: 'ls', hint: 'python' }, 'hint must be one of the following values: auto, shell, sql'],
    [
      'text over 100 000 characters',
      { text: 'x'.repeat(100_001) },
      'text must be shorter than or equal to 100000 characters',
    ],
  ])('refuses %s', async (_label, plain, problem) => {
    await expect(problems(plain)).resolves.toContain(problem);
  });
});
