import { headerCredentialProblems, urlCredentialProblem } from './tool-credential.rules';

describe('headerCredentialProblems', () => {
  it.each([
    ['Authorization', 'Bearer abc123'],
    ['Authorization', 'Basic dXNlcjpwYXNz'],
    ['Authorization', 'Bearer ${secret:T} extra-literal'],
    ['X-Api-Key', 'k-12345'],
    ['Cookie', 'session=abc; theme=dark'],
    ['X-Custom', 'token ghp_abcdefghijklmnopqrstuvwx123'],
    ['X-Forward', 'Bearer xyz'],
    ['X-Trace', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2ln'],
    ['X-Anything', 'sk-proj-abcdefghijklmnopqrstu'],
  ])('refuses %s: %s, naming the header and never the value', (name, value) => {
    const problems = headerCredentialProblems({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0].field).toBe(`headers.${name}`);
    expect(problems[0].problems.join(' ')).toContain('${secret:NAME}');
    expect(JSON.stringify(problems)).not.toContain(value);
  });

  it.each([
    ['Authorization', 'Bearer ${secret:GH_TOKEN}'],
    ['Authorization', '${secret:RAW_AUTH}'],
    ['Cookie', 'session=${secret:SESSION}; csrf=${secret:CSRF}'],
    ['X-Api-Key', '${secret:KEY}'],
    ['Accept', 'application/vnd.github.v3+json'],
    ['X-Team', 'core'],
    ['User-Agent', 'agent-tool-gateway/1.0'],
  ])('accepts %s: %s', (name, value) => {
    expect(headerCredentialProblems({ [name]: value })).toEqual([]);
  });
});

describe('urlCredentialProblem', () => {
  it('refuses user info without echoing the password', () => {
    const problem = urlCredentialProblem('https://bob:hunter2-pw@mcp.example.com/mcp', 'url');
    expect(problem?.field).toBe('url');
    expect(JSON.stringify(problem)).not.toContain('hunter2-pw');
  });

  it('refuses a literal credential in the query, accepts a placeholder and ordinary parameters', () => {
    expect(urlCredentialProblem('https://api.example.com/x?api_key=abc123', 'endpoint')?.problems[0]).toContain(
      'api_key',
    );
    expect(
      JSON.stringify(urlCredentialProblem('https://api.example.com/x?access_token=zz9', 'endpoint')),
    ).not.toContain('zz9');
    expect(urlCredentialProblem('https://api.example.com/x?key={key}&q=1', 'endpoint')).toBeNull();
    expect(urlCredentialProblem('https://api.example.com/users/{id}?expand=true', 'endpoint')).toBeNull();
  });
});
