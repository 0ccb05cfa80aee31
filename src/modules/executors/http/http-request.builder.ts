import type { HttpMethod, ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import { ToolCallError } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';
import type { SecretScope } from '@app/modules/tenant-secrets/tool-secret.scope';
import { fillHeaderSecrets } from '../secrets/tool-header.secrets';
import { applyRemoteContextHeaders, RemoteCallContext } from '../remote-context/remote-call.context';
import { pathPlaceholderProblem, urlShapeProblem } from './http-path-placeholder.rules';
import { isTransportHeader } from '@app/modules/tool-registry/tool-context.headers';

/** The request an HTTP tool call sends, before it goes on the wire. */
export interface HttpToolRequest {
  url: URL;
  method: HttpMethod;
  headers: Record<string, string>;
  /** JSON text of the arguments left after the URL placeholders (POST, PUT, PATCH only). */
  body?: string;
}

/** Method of an HTTP tool registered without one. */
const HTTP_TOOL_DEFAULT_METHOD: HttpMethod = 'POST';

const PLACEHOLDER = /\{([A-Za-z0-9_.-]+)\}/g;
const QUERY_METHODS: ReadonlySet<HttpMethod> = new Set(['GET', 'DELETE']);

/**
 * Builds the request of one HTTP tool call:
 * - `{param}` placeholders in the endpoint's path and query are filled from the arguments (URL-encoded) and
 *   consumed; placeholders in the scheme or authority are refused (the model must not pick the host); a path
 *   value must stay one segment ({@link pathPlaceholderProblem}) and the filled URL must keep the template's
 *   origin and segment count ({@link urlShapeProblem});
 * - GET and DELETE send the other arguments as the query string (arrays repeat the key, objects are JSON,
 *   null/undefined are left out); other methods send them as a JSON object body;
 * - the tool's `headers` are sent with `${secret:NAME}` filled from the tool's own scope (platform-wide: TOOL_SECRETS;
 *   a tenant's tool: that tenant's secrets);
 * - the context headers (`X-Tenant-Id`, ..., `Idempotency-Key`) are set last: a tool header cannot replace them.
 * @throws ToolCallError `INVALID_REQUEST` or `SECRET_MISSING` (not transient, never sent).
 */
export function buildHttpToolRequest(
  tool: Pick<ToolDescriptor, 'name' | 'endpoint' | 'httpMethod' | 'headers'>,
  args: Record<string, unknown>,
  context: RemoteCallContext,
  secrets: SecretScope,
): HttpToolRequest {
  const method = tool.httpMethod ?? HTTP_TOOL_DEFAULT_METHOD;
  const rest: Record<string, unknown> = { ...args };
  const url = parseUrl(tool.name, fillPlaceholders(tool, args, rest));
  assertTemplateShape(tool, url);
  let body: string | undefined;
  if (QUERY_METHODS.has(method)) appendQuery(tool.name, url, rest);
  else body = JSON.stringify(rest);

  const headers: Record<string, string> = {
    accept: 'application/json, text/plain;q=0.9, */*;q=0.8',
    'user-agent': 'agent-tool-gateway',
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (const [name, template] of Object.entries(tool.headers ?? {})) {
    if (isTransportHeader(name)) {
      throw invalid(
        `HTTP tool "${tool.name}": its header "${name}" is set by the gateway from the endpoint and the body; remove it from the tool's headers (to reach another host, change the endpoint). Nothing was sent.`,
      );
    }
    headers[name.toLowerCase()] = fillHeaderSecrets(`HTTP tool "${tool.name}"`, name, template, secrets);
  }
  applyRemoteContextHeaders(headers, context);
  return { url, method, headers, body };
}

function fillPlaceholders(
  tool: Pick<ToolDescriptor, 'name' | 'endpoint'>,
  args: Record<string, unknown>,
  rest: Record<string, unknown>,
): string {
  const endpoint = tool.endpoint;
  const authorityEnd = endOfAuthority(endpoint);
  const pathEnd = endOfPath(endpoint, authorityEnd);
  /** The path's values as given (not encoded), by their placeholder's offset: see assertFilledSegments. */
  const pathValues = new Map<number, string>();
  const filled = endpoint.replace(PLACEHOLDER, (_match, name: string, offset: number) => {
    if (offset < authorityEnd) {
      throw invalid(
        `HTTP tool "${tool.name}": placeholder {${name}} is in the URL's scheme or host; placeholders are allowed only in the path and query.`,
      );
    }
    const value = Object.hasOwn(args, name) ? args[name] : undefined;
    if (value === undefined || value === null) {
      throw invalid(`HTTP tool "${tool.name}": the URL needs the argument "${name}", which the call did not provide.`);
    }
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects take the JSON branch
    const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
    const problem = offset < pathEnd ? pathPlaceholderProblem(text) : null;
    if (problem) {
      throw invalid(
        `HTTP tool "${tool.name}": the argument "${name}" fills the path placeholder {${name}} but ${problem}. ` +
          'A path value must be exactly one segment (not empty, not "." or "..", no "/" or "\\", in any encoding); nothing was sent.',
      );
    }
    if (offset < pathEnd) pathValues.set(offset, text);
    delete rest[name];
    return encodeURIComponent(text);
  });
  assertFilledSegments(tool, endpoint.slice(0, pathEnd), pathValues);
  return filled;
}

/**
 * Each path segment that holds placeholders must pass {@link pathPlaceholderProblem} once filled, as a whole: two
 * values side by side (`{a}{b}`) may each be harmless and together spell `%2e%2e` (`%2` and `e%2e`), which a server
 * decoding twice reads as `..`.
 */
function assertFilledSegments(
  tool: Pick<ToolDescriptor, 'name' | 'endpoint'>,
  path: string,
  values: ReadonlyMap<number, string>,
): void {
  if (values.size < 2) return; // one value: checked as it was filled
  let start = 0;
  for (const segment of path.split('/')) {
    const holders = [...segment.matchAll(PLACEHOLDER)];
    if (holders.length > 1) {
      const text = segment.replace(PLACEHOLDER, (_m, _name: string, at: number) => values.get(start + at) ?? '');
      const problem = pathPlaceholderProblem(text);
      if (problem)
        throw invalid(
          `HTTP tool "${tool.name}": the arguments filling the path segment "${segment}" ${problem.replace(/^is /, 'make it ').replace(/^holds /, 'make it hold ')}; nothing was sent.`,
        );
    }
    start += segment.length + 1;
  }
}

/** Index where the query or fragment starts (placeholders before it fill path segments). */
function endOfPath(endpoint: string, authorityEnd: number): number {
  const rel = endpoint.slice(authorityEnd).search(/[?#]/);
  return rel < 0 ? endpoint.length : authorityEnd + rel;
}

/** The filled URL keeps the template's origin and number of path segments, whatever the values were. */
function assertTemplateShape(tool: Pick<ToolDescriptor, 'name' | 'endpoint'>, url: URL): void {
  const shape = tool.endpoint.replace(PLACEHOLDER, 'x');
  const template = URL.canParse(shape) ? new URL(shape) : null;
  const problem = template ? urlShapeProblem(template, url) : 'cannot be compared with the endpoint';
  if (problem)
    throw invalid(`HTTP tool "${tool.name}": the URL filled from the arguments ${problem}; nothing was sent.`);
}

/** Index where the path (or query) starts: placeholders before it would let arguments choose the host. */
function endOfAuthority(endpoint: string): number {
  const schemeEnd = endpoint.indexOf('://');
  if (schemeEnd < 0) return 0;
  const rel = endpoint.slice(schemeEnd + 3).search(/[/?#]/);
  return rel < 0 ? endpoint.length : schemeEnd + 3 + rel;
}

function parseUrl(toolName: string, filled: string): URL {
  try {
    return new URL(filled);
  } catch {
    throw invalid(`HTTP tool "${toolName}": the endpoint is not a valid absolute URL; fix the tool's endpoint.`);
  }
}

/**
 * Appends the arguments to the query string. One named like a parameter the endpoint already has (`?tenant=acme`) is
 * refused: a second `tenant` would let the model override what the tool fixes on servers that read the last value.
 */
function appendQuery(toolName: string, url: URL, rest: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined && value !== null && url.searchParams.has(key)) {
      throw invalid(
        `HTTP tool "${toolName}": the argument "${key}" would repeat the query parameter ${key} that the endpoint fixes; ` +
          'leave it out (or make it a {placeholder} in the endpoint if callers may set it); nothing was sent.',
      );
    }
  }
  for (const [key, value] of Object.entries(rest)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      url.searchParams.append(key, typeof item === 'object' ? JSON.stringify(item) : String(item));
    }
  }
}

function invalid(message: string): ToolCallError {
  return new ToolCallError(message, ToolErrorClass.INVALID_REQUEST, { transient: false, reachedRemote: false });
}
