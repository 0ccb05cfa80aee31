import { checkHeaderTemplates } from './tool-definition.rules';

describe('checkHeaderTemplates', () => {
  it.each(['Host', 'content-length', 'Transfer-Encoding', 'Connection', 'Upgrade', 'Expect'])(
    'refuses %s, which the HTTP client sets from the URL and the body',
    (name) => {
      const problems = checkHeaderTemplates({ [name]: 'x', Accept: 'application/json' });
      expect(problems).toEqual([{ field: `headers.${name}`, problems: [expect.stringContaining('remove it')] }]);
    },
  );

  it('accepts ordinary headers and secret references', () => {
    expect(checkHeaderTemplates({ Accept: 'application/json', Authorization: 'Bearer ${secret:TOKEN}' })).toEqual([]);
  });

  it('refuses two names that differ only in case: HTTP header names are one name, and only one value would be sent', () => {
    expect(checkHeaderTemplates({ Authorization: 'Bearer ${secret:A}', authorization: 'Bearer ${secret:B}' })).toEqual([
      {
        field: 'headers.authorization',
        problems: ['is also given as "Authorization" (header names ignore case, so only one would be sent); keep one'],
      },
    ]);
  });
});
