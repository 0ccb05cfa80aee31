import type { TestGateway } from '@test/support/gateway-test-app';
import { CORPUS } from './knowledge-corpus';

/** Creates a knowledge base through the API and returns its id. */
export async function createKnowledgeBase(
  gw: TestGateway,
  body: { name: string; tenantId: string; kind?: 'INTERNAL' | 'HTTP'; url?: string },
  auth: { Authorization: string } = gw.admin,
): Promise<string> {
  const res = await gw.http
    .post('/api/v1/admin/knowledge-bases')
    .set(auth)
    .send({ kind: 'INTERNAL', ...body })
    .expect(201);
  return res.body.id as string;
}

/** Creates an agent through the API and returns its id. */
export async function createAgent(gw: TestGateway, body: { name: string; tenantId: string }): Promise<string> {
  const res = await gw.http.post('/api/v1/admin/agents').set(gw.admin).send(body).expect(201);
  return res.body.id as string;
}

/** Adds every corpus document (in order) and returns title → document id. */
export async function addCorpus(gw: TestGateway, knowledgeBaseId: string): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const doc of CORPUS) {
    const res = await gw.http
      .post(`/api/v1/admin/knowledge-bases/${knowledgeBaseId}/documents`)
      .set(gw.admin)
      .send(doc)
      .expect(201);
    ids.set(doc.title, res.body.id as string);
  }
  return ids;
}

export interface SearchResult {
  documentId: string | null;
  title: string;
  content: string;
  score: number;
  heading: string | null;
}

export async function searchBase(
  gw: TestGateway,
  knowledgeBaseId: string,
  query: string,
  topK = 3,
): Promise<SearchResult[]> {
  const res = await gw.http
    .post(`/api/v1/admin/knowledge-bases/${knowledgeBaseId}/search`)
    .set(gw.admin)
    .send({ query, topK })
    .expect(200);
  return res.body.results as SearchResult[];
}
