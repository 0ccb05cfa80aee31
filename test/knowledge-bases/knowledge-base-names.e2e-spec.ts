import { describeEachDialect } from '@test/support/test-database';
import { gatewayForSuite } from '@test/support/gateway-test-app';

const KB = '/api/v1/admin/knowledge-bases';

describeEachDialect(
  'knowledge bases: names are unique per tenant ignoring letter case only, on both databases',
  (dialect) => {
    const suite = gatewayForSuite(dialect);
    const create = (name: string, tenantId: string) =>
      suite.gw.http.post(KB).set(suite.gw.admin).send({ name, tenantId, kind: 'INTERNAL' });

    it.each([
      ['Café', 'Cafe'],
      ['Straße', 'Strasse'],
      ['ﾊﾝﾄﾞﾌﾞｯｸ', 'ハンドブック'],
      ['𠮷野家', '𩸽野家'],
    ])('takes %s and %s as two bases of one tenant', async (first, second) => {
      const tenantId = `names-${Buffer.from(first).toString('hex').slice(0, 16)}`;
      await create(first, tenantId).expect(201);
      await create(second, tenantId).expect(201);
      const conflict = await create(first.toUpperCase(), tenantId);
      expect([conflict.status, conflict.body.error?.code]).toEqual([409, 'KNOWLEDGE_BASE_NAME_TAKEN']);
    });

    it('takes a name of 128 characters whose lower case is longer (İ is i and a combining dot), and refuses it again in other letter case', async () => {
      const name = `${'İ'.repeat(100)}${'x'.repeat(28)}`;
      await create(name, 'names-long').expect(201);
      const conflict = await create(`${'İ'.repeat(100)}${'X'.repeat(28)}`, 'names-long');
      expect([conflict.status, conflict.body.error?.code]).toEqual([409, 'KNOWLEDGE_BASE_NAME_TAKEN']);
    });

    it.each([
      ['Hindi', 'कर्मचारी पुस्तिका'],
      ['Thai', 'คู่มือพนักงาน'],
      ['Tamil', 'பணியாளர் கையேடு'],
      ['Arabic with harakat', 'دَلِيلُ الموظف'],
      ['a combining accent', 'Cafe\u0301 menu'],
    ])('takes a name written with vowel signs or marks (%s) and refuses it again', async (_script, name) => {
      const tenantId = `names-marks-${Buffer.from(name).toString('hex').slice(0, 12)}`;
      const created = await create(name, tenantId);
      expect([created.status, created.body.name]).toEqual([201, name]);
      const again = await create(name, tenantId);
      expect([again.status, again.body.error?.code]).toEqual([409, 'KNOWLEDGE_BASE_NAME_TAKEN']);
    });

    it.each([
      ['a combining grapheme joiner', 'hand\u034fbook'],
      ['a variation selector', 'handbook\ufe0f'],
      ['a Hangul filler', 'handbook\u3164'],
      ['a mark first', '\u0301handbook'],
    ])('refuses a name holding %s, which looks like another name (400 naming the field)', async (_what, name) => {
      const res = await create(name, 'names-invisible').expect(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.body.error.details)).toContain('name');
    });

    it('refuses a name ending with a space (400 naming the field)', async () => {
      const res = await create('handbook ', 'names-space').expect(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.body.error.details)).toContain('name');
      await create('hand book', 'names-space').expect(201);
      await create('v1.', 'names-space').expect(201);
      await create('x', 'names-space').expect(201);
    });
  },
);
