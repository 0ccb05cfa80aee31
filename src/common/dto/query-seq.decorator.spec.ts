import { createValidationPipe } from '@app/common/errors/validation';
import { DomainError } from '@app/common/errors/domain-error';
import { AfterSeqQueryDto } from './page.dto';
import { parseSeq, SEQ_MAX } from './query-seq.decorator';

describe('parseSeq', () => {
  it.each([
    ['0', 0],
    ['12', 12],
    ['2147483647', SEQ_MAX],
  ])('reads %s as %d', (text, seq) => {
    expect(parseSeq(text)).toBe(seq);
  });

  it.each(['', ' 1', '-1', '+1', '1.5', '1e3', '0x10', '2147483648', '9007199254740993', '9'.repeat(400)])(
    'refuses %p (not digits, or above the highest seq)',
    (text) => {
      expect(parseSeq(text)).toBeNull();
    },
  );
});

describe('AfterSeqQueryDto after (IsQuerySeq)', () => {
  const pipe = createValidationPipe();
  const validate = (query: Record<string, unknown>) =>
    pipe.transform(query, { type: 'query', metatype: AfterSeqQueryDto }) as Promise<AfterSeqQueryDto>;

  it('takes a seq in digits as a number, and no after at all', async () => {
    await expect(validate({ after: '2147483647' })).resolves.toMatchObject({ after: SEQ_MAX });
    await expect(validate({})).resolves.toEqual({});
  });

  it.each(['1e308', '2147483648', '-1', '1.5', '', ['1', '2']])(
    'refuses after=%p with one problem giving the range',
    async (after) => {
      const err = (await validate({ after }).catch((e: unknown) => e)) as DomainError;
      expect(err).toBeInstanceOf(DomainError);
      expect(err.details).toEqual({
        fields: [
          {
            field: 'after',
            problems: [
              'after must be a whole number from 0 to 2147483647: the seq of the last entry read (nextAfter of the last page), 0 for the start',
            ],
          },
        ],
      });
    },
  );
});
