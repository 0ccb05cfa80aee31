import type { TestGateway } from './gateway-test-app';

/** A SKILL.md with front matter. */
export function skillMd(name: string, description: string, body = 'Follow these steps.'): string {
  return `---\nname: ${name}\ndescription: ${JSON.stringify(description)}\n---\n\n# ${name}\n\n${body}\n`;
}

/** Uploads a skill as JSON through the API and returns its body (expects 201). */
export async function uploadJsonSkill(
  gw: TestGateway,
  auth: { Authorization: string },
  body: { tenantId?: string | null; skillContent: string; files?: Array<{ path: string; content: string }> },
): Promise<{ id: string; name: string; currentVersion: number }> {
  const res = await gw.http
    .post('/api/v1/admin/skills')
    .set(auth)
    .send({
      tenantId: body.tenantId,
      skillContent: body.skillContent,
      files: body.files?.map((f) => ({ path: f.path, contentBase64: Buffer.from(f.content).toString('base64') })),
    });
  if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
