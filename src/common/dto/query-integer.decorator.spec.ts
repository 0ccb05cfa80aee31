import { createValidationPipe } from '@app/common/errors/validation';
import { DomainError } from '@app/common/errors/domain-error';
import { AfterSeqQueryDto, PageQueryDto } from './page.dto';
import { parseQueryInteger } from './query-integer.decorator';

describe('parseQueryInteger', () => {
  it.each([
    ['0', 0],
    ['17', 17],
    ['-3', -3],
    ['-0', 0],
    ['007', 7],
  ])('reads %p as %d', (text, n) => {
    expect(Object.is(parseQueryInteger(text), n)).toBe(true);
  });

  it.each(['', ' 5', '5 ', '+5', '0x10', '1e3', '1.', '1.5', '0b1', 'Infinity', 'NaN', '5abc'])(
    'refuses %p (not a whole number in digits)',
    (text) => {
      expect(parseQueryInteger(text)).toBeNull();
    },
  );
});

describe('query integers through the validation pipe', () => {
  const pipe = createValidationPipe();
  const problemsOf = async (metatype: new () => object, query: Record<string, unknown>) => {
    const err = (await pipe.transform(query, { type: 'query', metatype }).catch((e: unknown) => e)) as DomainError;
    expect(err).toBeInstanceOf(DomainError);
    return (err.details as { fields: Array<{ field: string; problems: string[] }> }).fields;
  };

  it('takes page, pageSize and limit written in digits as numbers', async () => {
    await expect(
      pipe.transform({ page: '3', pageSize: '20' }, { type: 'query', metatype: PageQueryDto }),
    ).resolves.toMatchObject({ page: 3, pageSize: 20 });
    await expect(pipe.transform({ limit: '10' }, { type: 'query', metatype: AfterSeqQueryDto })).resolves.toMatchObject(
      {
        limit: 10,
      },
    );
  });

  // Before, `@Type(() => Number)` read these as 16, 1000, 1, 2 and (the empty one) 0: a typo was served as another page.
  it.each(['0x10', '1e3', '1.', ' 2', ''])('refuses page=%p, naming page', async (page) => {
    const fields = await problemsOf(PageQueryDto, { page });
    expect(fields.map((f) => f.field)).toEqual(['page']);
    expect(fields[0].problems).toContain('page must be an integer number');
  });

  it('keeps the ranges: limit=0x10 and limit=1001 are refused alike', async () => {
    expect((await problemsOf(AfterSeqQueryDto, { limit: '0x10' })).map((f) => f.field)).toEqual(['limit']);
    expect((await problemsOf(AfterSeqQueryDto, { limit: '1001' }))[0].problems).toEqual([
      'limit must not be greater than 1000',
    ]);
  });
});
