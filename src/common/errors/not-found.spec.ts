import { CommonErrorCode } from './common.errors';
import { DomainError } from './domain-error';
import { nullIfNotFound } from './not-found';

describe('nullIfNotFound', () => {
  it('answers null for a NOT_FOUND', () => {
    expect(nullIfNotFound(new DomainError(CommonErrorCode.NOT_FOUND, 'No agent a1'))).toBeNull();
  });

  it('throws any other error on: a database busy or unreachable is no missing row', () => {
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    expect(() => nullIfNotFound(busy)).toThrow(busy);
    const forbidden = new DomainError(CommonErrorCode.FORBIDDEN, 'not yours');
    expect(() => nullIfNotFound(forbidden)).toThrow(forbidden);
  });
});
