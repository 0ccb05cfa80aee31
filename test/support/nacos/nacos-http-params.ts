import type http from 'node:http';
import {
  DEFAULT_CLUSTER,
  DEFAULT_GROUP,
  PUBLIC_NAMESPACE,
  type TestInstanceKey,
  groupedName,
  splitGroupedName,
} from './nacos-naming-state';

/** An answer with a status other than 200; real servers answer errors as plain text. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The v1 API treats an empty `namespaceId` as `public`. */
export function ns(namespaceId: string | null | undefined): string {
  return namespaceId || PUBLIC_NAMESPACE;
}

/** A parameter the real server requires; missing, it answers 400 `caused: Param 'x' is required.`. */
export function required(params: URLSearchParams, name: string): string {
  const value = params.get(name);
  if (!value) throw new HttpError(400, `caused: Param '${name}' is required.`);
  return value;
}

/** `serviceName` is `group@@service`; a bare name takes `groupName` (default DEFAULT_GROUP). */
export function serviceNameOf(params: URLSearchParams): string {
  const raw = required(params, 'serviceName');
  const { group, service } = splitGroupedName(raw, params.get('groupName') || DEFAULT_GROUP);
  return groupedName(group, service);
}

/** `ip`, `port` and `clusterName` (default DEFAULT) of an instance call. */
export function endpointOf(params: URLSearchParams): TestInstanceKey {
  const port = Number(required(params, 'port'));
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new HttpError(400, `caused: invalid port ${params.get('port')}`);
  return { ip: required(params, 'ip'), port, clusterName: params.get('clusterName') || DEFAULT_CLUSTER };
}

/** `true`/`false` parameters; absent or empty takes `fallback`. */
export function bool(value: string | null, fallback: boolean): boolean {
  return value === null || value === '' ? fallback : value.toLowerCase() === 'true';
}

/** Metadata arrives as a JSON object, or (older clients) as `k1=v1,k2=v2`. */
export function parseMetadata(raw: string | null): Record<string, string> {
  if (!raw) return {};
  try {
    const parsed = JSON.parse(raw) as Record<string, unknown>;
    return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
  } catch {
    return Object.fromEntries(
      raw
        .split(',')
        .filter(Boolean)
        .map((pair) => {
          const eq = pair.indexOf('=');
          return eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
        }),
    );
  }
}

/** The whole request body as text (form-encoded parameters are merged with the query string). */
export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Objects go out as JSON, strings as plain text, like the real server's answers. */
export function send(res: http.ServerResponse, status: number, answer: unknown): void {
  const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
  res.writeHead(status, {
    'Content-Type': typeof answer === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
  });
  res.end(text);
}
