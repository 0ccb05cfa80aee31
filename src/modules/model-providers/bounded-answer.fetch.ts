import type { OutboundFetch } from '@app/modules/executors/outbound/outbound-http.agent';

/** A model provider's answer went past a bound of {@link boundedAnswerFetch}; the message says which. */
export class ModelAnswerBoundError extends Error {
  override name = 'ModelAnswerBoundError';
}

/** The bounds of one provider's answers. */
export interface AnswerBounds {
  /** The provider's name, for the messages. */
  provider: string;
  /** The whole exchange of one attempt, body included. */
  timeoutMs: number;
  /** Bytes of one answer's body. */
  maxBytes: number;
}

/**
 * A provider's `fetch` with each answer bounded: the whole exchange, body included, within `timeoutMs` (the OpenAI
 * client's own timer stops once the headers arrive, so a provider dripping its body held a run worker for as long as
 * it kept the socket open), and at most `maxBytes` of body, counted as it streams in (a larger answer fails before
 * it is held in memory, let alone stored in the conversation). Either failure is a {@link ModelAnswerBoundError}; a
 * body over the bound fails as it is read, so the client does not retry it.
 */
export function boundedAnswerFetch(inner: OutboundFetch, bounds: AnswerBounds): OutboundFetch {
  const tooLarge = (bytes: number, exact: boolean) =>
    new ModelAnswerBoundError(
      `model provider ${bounds.provider} answered with ${exact ? '' : 'more than '}${bytes} bytes, more than MODEL_MAX_ANSWER_BYTES (${bounds.maxBytes})`,
    );
  return async (url, init = {}) => {
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(
          new ModelAnswerBoundError(
            `model provider ${bounds.provider} did not finish its answer within ${bounds.timeoutMs} ms`,
          ),
        ),
      bounds.timeoutMs,
    );
    timer.unref();
    const failure = (err: unknown): unknown => (deadline.signal.aborted ? deadline.signal.reason : err);
    const signal = init.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    let res: Response;
    try {
      res = await inner(url, { ...init, signal });
    } catch (err) {
      clearTimeout(timer);
      throw failure(err);
    }
    const declared = Number(res.headers.get('content-length'));
    if (!res.body || declared > bounds.maxBytes) {
      clearTimeout(timer);
      if (!res.body) return res;
      await res.body.cancel().catch(() => undefined);
      // Not thrown from fetch: the client would take it for a lost connection and ask again (each attempt paid for,
      // each getting the same answer). A body that fails when read fails the request once, as a streamed one does.
      const err = tooLarge(declared, true);
      const failing = new ReadableStream<Uint8Array>({ start: (controller) => controller.error(err) });
      return new Response(failing, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let seen = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            clearTimeout(timer);
            controller.close();
            return;
          }
          seen += value.byteLength;
          if (seen <= bounds.maxBytes) return controller.enqueue(value);
          clearTimeout(timer);
          const err = tooLarge(bounds.maxBytes, false);
          await reader.cancel(err).catch(() => undefined);
          controller.error(err);
        } catch (err) {
          clearTimeout(timer);
          controller.error(failure(err));
        }
      },
      cancel(reason) {
        clearTimeout(timer);
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
