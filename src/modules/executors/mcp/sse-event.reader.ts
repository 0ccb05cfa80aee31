const LINE_END = /[\r\n]/g;

/** One server-sent event: its `data` lines joined with `\n`, and its `event` and `id` fields when present. */
export interface SseEvent {
  event?: string;
  data: string;
  id?: string;
}

/**
 * Incremental `text/event-stream` parser (the WHATWG algorithm, minus `retry`): feed it decoded text as it
 * arrives, in chunks cut anywhere (inside a line, between CR and LF); it returns the events each chunk
 * completes. Lines end with LF, CRLF or CR; `:` lines are comments; an event is dispatched at a blank line
 * and only when it has data.
 */
export class SseEventReader {
  private buffer = '';
  /** A chunk ended with CR: a LF at the start of the next one belongs to the same line end. */
  private pendingCr = false;
  private data: string[] = [];
  private event: string | undefined;
  private id: string | undefined;

  push(text: string): SseEvent[] {
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    LINE_END.lastIndex = 0;
    for (let m = LINE_END.exec(this.buffer); m; m = LINE_END.exec(this.buffer)) {
      const end = m.index;
      const event = this.line(this.buffer.slice(start, end));
      if (event) events.push(event);
      start = end + 1;
      if (this.buffer[end] === '\r') {
        if (start === this.buffer.length) this.pendingCr = true;
        else if (this.buffer[start] === '\n') start++;
      }
      LINE_END.lastIndex = start;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    return undefined;
  }

  private dispatch(): SseEvent | undefined {
    const data = this.data;
    const event = this.event;
    this.data = [];
    this.event = undefined;
    if (data.length === 0) return undefined;
    const out: SseEvent = { data: data.join('\n') };
    if (event !== undefined) out.event = event;
    if (this.id !== undefined) out.id = this.id;
    return out;
  }
}
