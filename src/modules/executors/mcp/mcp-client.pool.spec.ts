import type { OutboundHttpAgent } from '../outbound/outbound-http.agent';
import { McpClientPool } from './mcp-client.pool';

function poolWithoutIdleSweep(): McpClientPool {
  // No session is opened here: the outbound agent is never used, and no idle sweep is started.
  return new McpClientPool({} as OutboundHttpAgent, { mcp: { toolsCallClient: 'exchange', sessionIdleMs: 0 } });
}

describe('McpClientPool', () => {
  describe('onToolsListChanged', () => {
    it('keeps nothing for a URL once its last listener is unregistered', () => {
      const pool = poolWithoutIdleSweep();
      // A Nacos service's instances come and go (each redeploy a new address): the watcher follows each one's URL,
      // then lets it go.
      for (let i = 0; i < 500; i++) {
        const url = `http://10.0.${Math.floor(i / 250)}.${i % 250}:8080/mcp`;
        const first = pool.onToolsListChanged(url, () => undefined);
        const second = pool.onToolsListChanged(url, () => undefined);
        first();
        second();
        second(); // unregistering twice changes nothing
      }
      expect(pool['listChangedListeners'].size).toBe(0);
    });

    it('keeps the listeners still registered for a URL when another one is unregistered', () => {
      const pool = poolWithoutIdleSweep();
      const url = 'http://10.0.0.1:8080/mcp';
      let heard = 0;
      const stop = pool.onToolsListChanged(url, () => undefined);
      pool.onToolsListChanged(url, () => heard++);
      stop();
      pool['notifyToolsListChanged'](url);
      expect(heard).toBe(1);
      expect(pool['listChangedListeners'].get(url)?.size).toBe(1);
    });

    it('registers again for a URL whose listeners were all unregistered', () => {
      const pool = poolWithoutIdleSweep();
      const url = 'http://10.0.0.1:8080/mcp';
      const stopOld = pool.onToolsListChanged(url, () => undefined);
      stopOld();
      let heard = 0;
      const stop = pool.onToolsListChanged(url, () => heard++);
      // An old unregister called again touches neither the new listener nor the URL's new entry.
      stopOld();
      pool['notifyToolsListChanged'](url);
      expect(heard).toBe(1);
      stop();
      expect(pool['listChangedListeners'].size).toBe(0);
    });
  });
});
