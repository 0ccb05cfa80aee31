import { SseEventReader } from './sse-event.reader';

const STREAM =
  'event: message\r\nid: 7\r\ndata: {"a":1,\r\ndata: "b":2}\r\n\r\n: keep-alive comment\n\ndata:no space\n\nid: 8\nretry: 100\n\n';

describe('SseEventReader', () => {
  it('parses fields, multi-line data, comments and every line ending', () => {
    expect(new SseEventReader().push(STREAM)).toEqual([
      { event: 'message', id: '7', data: '{"a":1,\n"b":2}' },
      { id: '7', data: 'no space' },
    ]);
  });

  it('gives the same events however the text is cut, CR/LF pairs split across chunks included', () => {
    const whole = new SseEventReader().push(STREAM);
    for (let size = 1; size <= 7; size++) {
      const reader = new SseEventReader();
      const events = [];
      for (let i = 0; i < STREAM.length; i += size) events.push(...reader.push(STREAM.slice(i, i + size)));
      expect(events).toEqual(whole);
    }
  });

  it('dispatches an event with empty data (a resumption primer) and none without data lines', () => {
    expect(new SseEventReader().push('id: 1\ndata:\n\nevent: x\n\n')).toEqual([{ id: '1', data: '' }]);
  });

  it('holds an event back until its blank line arrives', () => {
    const reader = new SseEventReader();
    expect(reader.push('data: half')).toEqual([]);
    expect(reader.push('\n')).toEqual([]);
    expect(reader.push('\n')).toEqual([{ data: 'half' }]);
  });
});
