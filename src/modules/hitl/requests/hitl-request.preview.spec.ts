import {
  HITL_PARAMS_MAX_CHARS,
  HITL_TEXT_MAX_CHARS,
  boundedJson,
  previewParams,
  previewText,
} from './hitl-request.preview';

describe('previewParams', () => {
  it('keeps arguments that fit as they are', () => {
    const args = { command: 'rm -rf ./build', n: [1, 2, { deep: null }] };
    expect(previewParams(args)).toBe(args);
  });

  it('shortens long arguments to a marker with the start of their JSON', () => {
    const shown = previewParams({ blob: 'x'.repeat(2_000_000) }) as { $truncated: string; preview: string };
    expect(shown.$truncated).toMatch(/shortened/);
    expect(shown.preview.startsWith('{"blob":"xxx')).toBe(true);
    expect(shown.preview.length).toBe(HITL_PARAMS_MAX_CHARS);
  });

  it('shortens nesting deeper than the cap without overflowing the stack', () => {
    const root: Record<string, unknown> = {};
    let node = root;
    for (let i = 0; i < 100_000; i++) node = node.a = {};
    const shown = previewParams(root) as { preview: string };
    expect(shown.preview).toContain('"…"');
  });

  it('stops a wide object early', () => {
    const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    const { json, complete } = boundedJson(wide, 1000, 8);
    expect(complete).toBe(false);
    expect(json.length).toBeLessThan(1100);
  });
});

describe('previewText', () => {
  it('cuts long text and says how much was left out', () => {
    expect(previewText('short')).toBe('short');
    const cut = previewText('y'.repeat(HITL_TEXT_MAX_CHARS + 5));
    expect(cut).toBe(`${'y'.repeat(HITL_TEXT_MAX_CHARS)}… (5 more characters)`);
  });
});
