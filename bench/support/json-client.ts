import { Agent, request } from 'undici';

/** A keep-alive HTTP/1.1 JSON client (undici), as a runtime calling the gateway would use. */
export class JsonClient {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });

  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string>,
  ) {}

  /** POSTs `body` and returns the parsed answer; throws on a status other than `expected`. */
  async post<T = any>(path: string, body: unknown, expected = 200): Promise<T> {
    const res = await request(`${this.baseUrl}${path}`, {
      method: 'POST',
      dispatcher: this.agent,
      headers: { ...this.headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode !== expected) throw new Error(`POST ${path} answered ${res.statusCode}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
