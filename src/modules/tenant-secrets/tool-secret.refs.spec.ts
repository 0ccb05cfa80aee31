import { tenantSecretRefProblems } from './tool-secret.refs';
import { tenantSecretScope } from './tool-secret.scope';

describe('secret references a tenant secret can never fill', () => {
  it('names each such reference of a tenant owner, with the upper-case name to use instead', () => {
    const problems = tenantSecretRefProblems('acme', {
      'headers.Authorization': 'Bearer ${secret:gh_token}',
      'headers.X-Both': '${secret:Mixed_Case}:${secret:OK_NAME}:${secret:Mixed_Case}',
      'headers.X-Fine': '${secret:GH_TOKEN}',
      'headers.X-Digit': '${secret:1ST}',
    });
    expect(problems.map((p) => p.field)).toEqual(['headers.Authorization', 'headers.X-Both', 'headers.X-Digit']);
    expect(problems[0].problems).toHaveLength(1);
    expect(problems[0].problems[0]).toContain('${secret:gh_token}, a name no secret of tenant acme can have');
    expect(problems[0].problems[0]).toContain('PUT /api/v1/admin/tenants/acme/secrets/GH_TOKEN');
    expect(problems[1].problems).toHaveLength(1);
    expect(problems[1].problems[0]).toContain('${secret:MIXED_CASE}');
    expect(problems[2].problems[0]).toContain('${secret:<NAME>}');
  });

  it('leaves a platform-wide owner alone (TOOL_SECRETS names take any letter case)', () => {
    expect(tenantSecretRefProblems(null, { apiKey: '${secret:gh_token}' })).toEqual([]);
  });

  it('says so at call time for a reference stored before the check, instead of pointing at a PUT that refuses it', () => {
    const scope = tenantSecretScope('acme', { values: new Map(), unreadable: new Set(), keyConfigured: true });
    expect(scope.missing('gh_token')).toContain('reference ${secret:GH_TOKEN} instead');
    expect(scope.missing('GH_TOKEN')).toContain('which tenant acme does not have');
  });
});
