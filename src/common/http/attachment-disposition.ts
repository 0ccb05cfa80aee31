/**
 * `Content-Disposition: attachment` naming a download `name` (any characters: a workspace file's name is whatever a
 * command made it) as RFC 8187 says: UTF-8, every byte outside attr-char percent-encoded. encodeURIComponent alone
 * leaves `'` (and `(`, `)`, `*`) as they are, and Chromium dropped a name holding `'`: `it's.csv` was saved as
 * `content`, the last segment of the URL.
 */
export function attachmentDisposition(name: string): string {
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename*=UTF-8''${encoded}`;
}
