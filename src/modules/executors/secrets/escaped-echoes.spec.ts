import { hideSecretValues, valuesToHide } from './tool-header.secrets';

const SECRET = 'wJalr/K7MDENG+bPxR&fi"é 😀';
const hide = (text: string, secret = SECRET) => hideSecretValues(text, valuesToHide([secret]));

describe('hideSecretValues: a secret echoed with some of its characters escaped', () => {
  it.each([
    ['as sent', SECRET],
    ['JSON.stringify', JSON.stringify(SECRET).slice(1, -1)],
    ["PHP's json_encode (\\/ and \\uXXXX in lower case)", 'wJalr\\/K7MDENG+bPxR&fi\\"\\u00e9 \\ud83d\\ude00'],
    [
      '.NET System.Text.Json (\\u002B, \\u0026, \\u0022, upper case)',
      'wJalr/K7MDENG\\u002BbPxR\\u0026fi\\u0022\\u00E9 \\uD83D\\uDE00',
    ],
    ['encodeURIComponent', encodeURIComponent(SECRET)],
    ['percent-encoding in lower case', encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())],
    ['form encoding (space as +)', new URLSearchParams({ k: SECRET }).toString().slice(2)],
  ])('%s', (_form, echoed) => {
    expect(hide(`{"echoed":"${echoed}","n":1}`)).toBe('{"echoed":"***","n":1}');
  });

  it('leaves a text without the secret exactly as it was (a lone surrogate, escapes of other text)', () => {
    const text = 'a\\u0041 \\/ %41%zz + \ud800 b\\';
    expect(hide(text)).toBe(text);
  });

  it('masks each echo and only the echo, between and beside other escapes', () => {
    const secret = 'ab/c+d';
    expect(hide('x\\n"ab\\/c+d" y%2Fab%2Fc%2Bd \\u0061b/c\\u002Bd z', secret)).toBe('x\\n"***" y%2F*** *** z');
  });

  // A pattern with an alternative per character (`\` or `\\` for a backslash) backtracked on a run of backslashes:
  // 20 of them in the secret took 1 s of the event loop, each one more doubled it. Decoded views are linear.
  it('takes a secret of 4,000 backslashes and an answer of 1 MB of backslashes without backtracking', () => {
    const secret = `${'\\'.repeat(4_000)}y`;
    const text = `${'\\'.repeat(1_000_000)}x`;
    expect(hide(text, secret)).toBe(text);
    expect(hide(`"${JSON.stringify(secret).slice(1, -1)}"`, secret)).toBe('"***"');
  });
});
