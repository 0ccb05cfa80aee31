import { DomainError } from '../errors/domain-error';
import { UNSAFE_LINE_PROBLEM } from '../safe-text';
import { AjvBodyPipe } from './ajv-body.pipe';
import { SAFE_LINE_PATTERN } from '../safe-text';

const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: 8, pattern: SAFE_LINE_PATTERN },
    tags: { type: 'array', items: { type: 'string', maxLength: 3 } },
    kinds: { type: 'array', items: { enum: ['A', 'B'] } },
    rows: { type: 'array', items: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } },
    mode: { enum: ['fast', 'full'], default: 'fast' },
    loud: { type: 'boolean' },
  },
  'x-only-with': { loud: { needs: { mode: 'fast' }, because: 'the fast mode' } },
};

const pipe = new AjvBodyPipe(SCHEMA);

function fieldsOf(body: unknown): unknown {
  try {
    pipe.transform(body);
  } catch (err) {
    return ((err as DomainError).details as { fields: unknown }).fields;
  }
  throw new Error('the body was accepted');
}

describe('AjvBodyPipe', () => {
  it('passes a valid body through as it is', () => {
    const body = { name: 'n', tags: ['a'], kinds: ['A'], rows: [{ id: '1' }], mode: 'fast', loud: true };
    expect(pipe.transform(body)).toBe(body);
  });

  it('names an array of values once for all its bad items, and an item of an array of objects by index', () => {
    expect(fieldsOf({ tags: ['long', 'longer'], kinds: ['C'], rows: [{}] })).toEqual([
      { field: 'tags', problems: ['must NOT have more than 3 characters'] },
      { field: 'kinds', problems: ['must be one of: A, B'] },
      { field: 'rows.0.id', problems: ['is required'] },
    ]);
  });

  it('says which characters a one-line string must not hold', () => {
    expect(fieldsOf({ name: 'a\u202eb' })).toEqual([{ field: 'name', problems: [UNSAFE_LINE_PROBLEM] }]);
  });

  it('x-only-with: the switch needs the other property (absent counts as its default), reported on the switch', () => {
    expect(pipe.transform({ loud: true })).toEqual({ loud: true });
    expect(pipe.transform({ loud: false, mode: 'full' })).toEqual({ loud: false, mode: 'full' });
    expect(fieldsOf({ loud: true, mode: 'full' })).toEqual([
      { field: 'loud', problems: ['loud is the fast mode: send it with mode fast, or leave it out for mode full'] },
    ]);
  });
});
