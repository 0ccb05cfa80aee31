/**
 * Reads a `fetch` response's body up to `limit` bytes. Over the limit (a declared Content-Length, or the bytes as they
 * stream in) the body is cancelled and `null` is returned: nothing larger is ever held in memory.
 */
export async function readResponseLimited(response: Response, limit: number): Promise<Buffer | null> {
  const body = response.body as ReadableStream<Uint8Array> | null;
  if (!body) return Buffer.alloc(0);
  if (Number(response.headers.get('content-length')) > limit) {
    await body.cancel().catch(() => undefined);
    return null;
  }
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(parts, size);
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    parts.push(value);
  }
}
