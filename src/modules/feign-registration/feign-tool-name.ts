/**
 * The default tool name of a method: snake_case, limited to what models accept.
 * `getOrder` → `get_order`, `fetchHTTPStatus` → `fetch_http_status`, `orderV2Lookup` → `order_v2_lookup`.
 */
export function toolNameFromMethod(methodName: string): string {
  return methodName
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
}
