import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import * as zlib from 'node:zlib';
import type { IncomingHttpHeaders } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { formatByteSize } from '@app/common/text/byte-size';
import { ToolCallError, ToolOutput } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';
import { parseRetryAfter } from './retry-after';

/** Bytes of an error response read for the message excerpt. */
const ERROR_BODY_BYTES = 16 * 1024;
const EXCERPT_CHARS = 300;
/**
 * How long the rest of an error body is waited for once its head arrived: the status already says what happened, and a
 * body that never ends must not turn a retryable 503 into a timeout that used up the whole budget.
 */
const ERROR_BODY_WAIT_MS = 1000;

/**
 * Reads a body up to `limit` bytes. Over the limit the stream is destroyed (which closes the connection)
 * and `null` is returned. A declared Content-Length over the limit fails before reading.
 */
export async function readBodyLimited(
  body: Readable,
  headers: IncomingHttpHeaders,
  limit: number,
): Promise<Buffer | null> {
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    body.destroy();
    return null;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      body.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}

type Inflate = (body: Buffer, options: { maxOutputLength: number }) => Promise<Buffer>;

const gunzip: Inflate = promisify(zlib.gunzip);
const brotli: Inflate = promisify(zlib.brotliDecompress);
const zlibInflate: Inflate = promisify(zlib.inflate);
const rawInflate: Inflate = promisify(zlib.inflateRaw);
/** `deflate` is zlib-wrapped by the RFC, raw in some servers: both are read. */
const inflate: Inflate = (body, options) =>
  zlibInflate(body, options).catch((err: { code?: string }) => {
    if (err.code === 'ERR_BUFFER_TOO_LARGE') throw err; // a zlib body after all, just too large
    return rawInflate(body, options);
  });
const DECODERS: Record<string, Inflate> = { gzip: gunzip, 'x-gzip': gunzip, deflate: inflate, br: brotli };

/**
 * A body with its Content-Encoding undone (the gateway asks for none, but a tool's own `Accept-Encoding` header may),
 * never inflated past `limit` bytes: `null` when it would be (a decompression bomb stops there, not in memory).
 * @throws ToolCallError `RESPONSE_UNREADABLE` for an encoding it does not know or data that does not decode.
 */
export async function decodeContent(
  target: string,
  status: number,
  headers: IncomingHttpHeaders,
  body: Buffer,
  limit: number,
): Promise<Buffer | null> {
  const codings = contentCodings(headers);
  if (body.length === 0) return body;
  let out = body;
  for (const coding of codings.reverse()) {
    const decode = DECODERS[coding];
    if (!decode) {
      throw unreadable(
        target,
        status,
        `answered with Content-Encoding ${coding}, which the gateway cannot decode; remove the Accept-Encoding header from the tool's headers or ask for gzip, deflate or br`,
      );
    }
    try {
      out = await decode(out, { maxOutputLength: limit });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return null;
      throw unreadable(target, status, `answered a body that is not valid ${coding} data (${(err as Error).message})`);
    }
  }
  return out;
}

/** The codings applied to a body, in the order they were applied (`identity` left out), lower case. */
function contentCodings(headers: IncomingHttpHeaders): string[] {
  const raw = headers['content-encoding'];
  if (!raw) return [];
  return String(raw)
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

function unreadable(target: string, status: number, what: string): ToolCallError {
  return new ToolCallError(`${target} ${what}.`, ToolErrorClass.RESPONSE_UNREADABLE, {
    transient: false,
    reachedRemote: true,
    httpStatus: status,
  });
}

/**
 * The output of a 2xx response: `content` is the body text exactly as the service sent it (decoded with
 * {@link bodyText}; JSON is not re-formatted, so nothing is lost and no time is spent); `structured` is the
 * parsed JSON when the response says it is JSON and parses. An empty body reads `(empty response, HTTP <status>)`.
 * A binary body (an image, a PDF, bytes that are not text) is summarized as MCP binary content is
 * (`[binary response: image/png, 1.2 KB, HTTP 200]`): decoded as text it would only be noise for the model.
 */
export function toHttpToolOutput(status: number, headers: IncomingHttpHeaders, body: Buffer): ToolOutput {
  const type = String(headers['content-type'] ?? '');
  if (isBinaryBody(body, type, true))
    return { content: `[binary response: ${binaryTypeOf(type)}, ${formatByteSize(body.length)}, HTTP ${status}]` };
  const text = bodyText(body, headers);
  if (text.length === 0) return { content: `(empty response, HTTP ${status})` };
  if (/\bjson\b/i.test(type)) {
    try {
      return { content: text, structured: JSON.parse(text) };
    } catch {
      // Not JSON after all: the text is still the best the model can get.
    }
  }
  return { content: text };
}

/**
 * The error of a non-2xx response. 4xx (except 408, 429) is the request's fault: not transient. 408, 429 and
 * 5xx are transient with Retry-After (seconds or HTTP date) as `retryAfterMs`. 3xx: redirects are never
 * followed (a redirect could lead anywhere), so they are not transient. The remote did see each of them.
 * `hide` masks what must not be quoted (the secrets the request carried) in the body and the Location.
 */
export async function httpStatusError(
  target: string,
  status: number,
  headers: IncomingHttpHeaders,
  body: Readable,
  hide: (text: string) => string = (text) => text,
): Promise<ToolCallError> {
  const prefix = await readPrefix(body, ERROR_BODY_BYTES).catch(() => null);
  // A compressed body is quoted only when it decodes whole (a cut one does not): never as raw bytes.
  const raw = prefix && (await decodeContent(target, status, headers, prefix, ERROR_BODY_BYTES).catch(() => null));
  const excerpt = excerptOf(raw, headers, hide);
  const suffix = excerpt ? `: ${excerpt}` : '';
  if (status >= 300 && status < 400) {
    const location = headers.location ? ` to ${hide(String(headers.location))}` : '';
    return new ToolCallError(
      `${target} answered HTTP ${status} (redirect${location}, not followed: a redirect could lead anywhere); ` +
        "set the tool's endpoint to the URL the service answers at",
      ToolErrorClass.HTTP_REDIRECT,
      {
        transient: false,
        reachedRemote: true,
        httpStatus: status,
      },
    );
  }
  const retryable = status === 408 || status === 429 || status >= 500;
  return new ToolCallError(
    `${target} answered HTTP ${status}${suffix}`,
    retryable ? ToolErrorClass.HTTP_RETRYABLE : ToolErrorClass.HTTP_CLIENT_ERROR,
    {
      transient: retryable,
      reachedRemote: true,
      httpStatus: status,
      retryAfterMs: retryable ? parseRetryAfter(headers['retry-after']) : undefined,
    },
  );
}

/** The first `max` bytes of a body (about), or what came within {@link ERROR_BODY_WAIT_MS}; the rest is dropped with the connection. */
async function readPrefix(body: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  const timer = setTimeout(() => body.destroy(), ERROR_BODY_WAIT_MS);
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= max) {
        body.destroy();
        break;
      }
    }
  } catch {
    // Cut short (the wait ran out, the connection broke): what came is enough for an excerpt.
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks, size);
}

/** Media types whose bodies are bytes, not text (a `+json` or `+xml` suffix, as in `image/svg+xml`, is text). */
const BINARY_MEDIA_TYPE =
  /^(?:image|audio|video|font)\/|^application\/(?:octet-stream|pdf|zip|gzip|x-gzip|x-tar|x-7z-compressed|vnd\.rar|x-rar-compressed|wasm|x-protobuf|protobuf|msword|vnd\.ms-[\w.-]+|vnd\.openxmlformats-officedocument\.[\w.-]+)$/i;

/**
 * Whether a body is binary: its Content-Type says so, or (`whole` bodies only: a cut one may end inside a character)
 * it names no text type and no charset and the bytes are not UTF-8. A body declared as text (a `text/`, JSON or XML
 * type, or any type with a charset) is text even when a byte is wrong in it.
 */
function isBinaryBody(body: Buffer, contentType: string, whole: boolean): boolean {
  if (body.length === 0) return false;
  const type = mediaTypeOf(contentType);
  if (/^text\/|[/+](?:json|xml)$/i.test(type) || /;\s*charset\s*=/i.test(contentType)) return false;
  return BINARY_MEDIA_TYPE.test(type) || (whole && !isUtf8(body));
}

/** The media type a Content-Type names, without its parameters ('' when none). */
function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

/** What a binary body is called in a summary. */
function binaryTypeOf(contentType: string): string {
  return mediaTypeOf(contentType) || 'application/octet-stream';
}

/**
 * A body as text, in the charset its Content-Type names (`charset=iso-8859-1`, `utf-16le`, ...), else UTF-8 (also when
 * the name is unknown); a byte order mark is dropped, so JSON behind one still parses.
 */
function bodyText(body: Buffer, headers: IncomingHttpHeaders): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(String(headers['content-type'] ?? ''))?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    try {
      return new TextDecoder(charset).decode(body);
    } catch {
      // An unknown charset name: UTF-8 is the best guess left.
    }
  }
  const text = body.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The start of an error body for a message; `hide` runs first, so a cut never shows part of what it hides. */
function excerptOf(raw: Buffer | null, headers: IncomingHttpHeaders, hide: (text: string) => string): string {
  if (!raw || raw.length === 0) return '';
  const type = String(headers['content-type'] ?? '');
  if (isBinaryBody(raw, type, false)) return `[binary body: ${binaryTypeOf(type)}]`;
  const text = hide(bodyText(raw, headers)).replace(/\s+/g, ' ').trim();
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}
