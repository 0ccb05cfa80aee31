import type { IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import type { ApiKeyResolver, AuthContext } from '../../auth/auth-context';
import { authorize } from '../../auth/authorize';
import { errorResponse } from '../../errors/domain-error.filter';
import { assertJsonBodyDepth } from '../json-body';
import type { DirectRouteDefinition } from './direct-route.compiler';

interface CompiledPath {
  route: DirectRouteDefinition;
  /** Lower-cased static segments, or null where a parameter goes. */
  segments: Array<string | null>;
  names: string[];
}

/** An HTTP-level failure mapped by errorResponse like the body parser's own (`status` 400 / 413). */
class RequestReadError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** `application/json`, optionally with `charset=utf-8`: what the Express JSON parser reads as UTF-8 too. */
const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;

/**
 * Serves the `@DirectRoute()` controller methods from node:http, before Express. Per request it does what the
 * Nest route does, in the same order, with the same shared pieces: read the JSON body (limit, empty body as
 * `{}`, objects and arrays only), {@link authorize} (the guard's rule), the method's pipes, the method, then
 * `@HttpCode` and a JSON answer; any error goes through {@link errorResponse} (the filter's mapping).
 * It takes only requests it can serve exactly like that; anything else (another path or verb, a body that is
 * not plain UTF-8 JSON, a compressed body) goes on to Express. The e2e suite runs the same requests with and
 * without it and expects the same answers.
 */
export class DirectRouter {
  private readonly logger = new Logger('Errors');
  private readonly byMethod = new Map<string, CompiledPath[]>();

  constructor(
    routes: readonly DirectRouteDefinition[],
    private readonly resolver: ApiKeyResolver,
    private readonly bodyLimitBytes: number,
  ) {
    for (const route of routes) {
      const parts = route.path.split('/').slice(1);
      const compiled: CompiledPath = {
        route,
        segments: parts.map((p) => (p.startsWith(':') ? null : p.toLowerCase())),
        names: parts.filter((p) => p.startsWith(':')).map((p) => p.slice(1)),
      };
      const list = this.byMethod.get(route.method) ?? [];
      list.push(compiled);
      this.byMethod.set(route.method, list);
    }
  }

  /** The routes it serves, `METHOD /path` (for the start-up log). */
  describe(): string[] {
    return [...this.byMethod].flatMap(([method, list]) => list.map((c) => `${method} ${c.route.path}`));
  }

  /** Serves the request and returns true, or returns false when Express should have it. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const candidates = this.byMethod.get(req.method ?? '');
    if (!candidates) return false;
    const type = req.headers['content-type'];
    if (type === undefined || !JSON_CONTENT_TYPE.test(type)) return false;
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
    const match = matchPath(candidates, req.url ?? '/');
    if (!match) return false;
    void this.serve(match.compiled.route, match.params, req, res);
    return true;
  }

  private async serve(route: DirectRouteDefinition, params: Record<string, string> | Error, req: IncomingMessage, res: ServerResponse): Promise<void> {
    let status: number;
    let payload: unknown;
    try {
      const body = await readJsonBody(req, this.bodyLimitBytes);
      if (params instanceof Error) throw params;
      const auth: AuthContext | undefined = route.roles === null ? undefined : await authorize(this.resolver, req.headers.authorization, route.roles);
      payload = await route.invoke(auth, params, body, { req, res });
      status = route.status;
    } catch (err) {
      [status, payload] = errorResponse(err, this.logger);
    }
    let json: string;
    try {
      json = payload === undefined ? '' : JSON.stringify(payload);
    } catch (err) {
      const [failed, body] = errorResponse(err, this.logger);
      [status, json] = [failed, JSON.stringify(body)];
    }
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
    res.end(json);
  }
}

/** The first route whose path matches (trailing slash and letter case ignored in static segments, as Express does). */
function matchPath(candidates: CompiledPath[], url: string): { compiled: CompiledPath; params: Record<string, string> | Error } | undefined {
  const query = url.indexOf('?');
  let path = query === -1 ? url : url.slice(0, query);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  const parts = path.split('/');
  for (const compiled of candidates) {
    if (parts.length !== compiled.segments.length + 1 || parts[0] !== '') continue;
    let ok = true;
    const raw: string[] = [];
    for (let i = 0; i < compiled.segments.length && ok; i++) {
      const want = compiled.segments[i];
      const got = parts[i + 1];
      if (want === null) {
        if (got.length === 0) ok = false;
        else raw.push(got);
      } else if (got.toLowerCase() !== want) ok = false;
    }
    if (!ok) continue;
    const params: Record<string, string> = {};
    try {
      compiled.names.forEach((name, i) => (params[name] = decodeURIComponent(raw[i])));
    } catch {
      return { compiled, params: new RequestReadError(400, `Failed to decode param '${raw.join('/')}'`) };
    }
    return { compiled, params };
  }
  return undefined;
}

/** The body parsed as the Express JSON parser does it (strict: an object or an array; empty is `{}`). */
function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    req.resume();
    return Promise.reject(new RequestReadError(413, 'request entity too large'));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new RequestReadError(413, 'request entity too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', (err) => {
      failed = true;
      reject(new RequestReadError(400, err.message));
    });
    req.on('end', () => {
      if (failed) return;
      const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      try {
        assertJsonBodyDepth(raw);
      } catch (err) {
        reject(err);
        return;
      }
      const text = raw.toString('utf8');
      try {
        resolve(parseStrictJson(text));
      } catch (err) {
        reject(new RequestReadError(400, (err as Error).message));
      }
    });
  });
}

function parseStrictJson(text: string): unknown {
  if (text.length === 0) return {};
  // eslint-disable-next-line no-control-regex -- JSON's whitespace: space, tab, line feed, carriage return
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw new SyntaxError(`Unexpected token '${first ?? ''}', "${text.slice(0, 20)}" is not valid JSON`);
  return JSON.parse(text);
}
