import { PassThrough } from 'node:stream';
import { SandboxOutputCollector, utf8SafeEnd } from './sandbox-output.collector';

describe('utf8SafeEnd', () => {
  it('keeps complete text whole', () => {
    expect(utf8SafeEnd(Buffer.from('abc é 中 😀'))).toBe(Buffer.byteLength('abc é 中 😀'));
  });

  it.each([
    ['a 2-byte character', 'é', 1],
    ['a 3-byte character', '中', 1],
    ['a 3-byte character', '中', 2],
    ['a 4-byte character', '😀', 3],
  ])('drops %s cut after %i byte(s)', (_name, char, kept) => {
    const bytes = Buffer.concat([Buffer.from('ab'), Buffer.from(char).subarray(0, kept)]);
    expect(utf8SafeEnd(bytes)).toBe(2);
  });

  it('leaves invalid bytes to the decoder instead of eating the text', () => {
    expect(utf8SafeEnd(Buffer.from([0x61, 0x80, 0x80, 0x80, 0x80, 0x80]))).toBe(6);
  });
});

describe('SandboxOutputCollector', () => {
  it('keeps everything under the cap', () => {
    const stream = new PassThrough();
    const collector = new SandboxOutputCollector(stream, 10);
    stream.write('hello');
    stream.write(' you');
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        expect(collector.text()).toBe('hello you');
        expect(collector.truncated).toBe(false);
        expect(stream.destroyed).toBe(false);
        resolve();
      }),
    );
  });

  it('keeps exactly the cap, marks it truncated and closes the stream', () => {
    const stream = new PassThrough();
    const collector = new SandboxOutputCollector(stream, 4);
    stream.write('abc');
    stream.write('éf');
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        // "abc" + the first byte of "é": the split character is dropped.
        expect(collector.text()).toBe('abc');
        expect(collector.truncated).toBe(true);
        expect(stream.destroyed).toBe(true);
        resolve();
      }),
    );
  });
});
