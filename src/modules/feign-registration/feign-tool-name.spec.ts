import { toolNameFromMethod } from './feign-tool-name';
import { TOOL_NAME_PATTERN } from '@app/modules/tool-registry/tool-registry.types';

describe('toolNameFromMethod', () => {
  it.each([
    ['getOrder', 'get_order'],
    ['listOrdersByCustomer', 'list_orders_by_customer'],
    ['fetchHTTPStatus', 'fetch_http_status'],
    ['parseJSON', 'parse_json'],
    ['orderV2Lookup', 'order_v2_lookup'],
    ['search', 'search'],
    ['already_snake', 'already_snake'],
    ['_privateHelper', 'private_helper'],
    ['$weird$name', 'weird_name'],
  ])('turns %s into %s', (method, expected) => {
    expect(toolNameFromMethod(method)).toBe(expected);
  });

  it('gives names every major model accepts', () => {
    for (const method of ['getOrder', 'fetchHTTPStatus', '$weird$name', 'a1B2c3']) {
      expect(toolNameFromMethod(method)).toMatch(TOOL_NAME_PATTERN);
    }
  });
});
