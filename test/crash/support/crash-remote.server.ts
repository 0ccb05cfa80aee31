import { RecordingHttpServer, RecordedRequest } from '@test/executors/support/recording-http.server';

/** The arguments the crash-matrix tools send (an HTTP tool posts its arguments as the JSON body). */
export interface CrashToolArguments {
  /** Names the case, so each case has its own side-effect counter. */
  ref: string;
  /** The first request of this ref waits this long before answering (so a kill can land mid-call). */
  delayMs?: number;
}

/**
 * The remote side of the crash matrix: a loopback HTTP service that counts, per `ref`, every request that
 * reached it (the side-effect counter) and answers `{"done":<ref>,"n":<count>}`. The first request of a ref
 * with `delayMs` answers that late; later ones at once, so a rerun does not wait.
 */
export class CrashRemoteServer extends RecordingHttpServer {
  constructor() {
    super();
    this.handler = async (req, res) => {
      const args = parseArguments(req);
      const n = this.hits(args.ref);
      if (args.delayMs && n === 1) await new Promise((resolve) => setTimeout(resolve, args.delayMs));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ done: args.ref, n }));
    };
  }

  /** Requests that reached the service for `ref`. */
  requestsFor(ref: string): RecordedRequest[] {
    return this.requests.filter((r) => parseArguments(r).ref === ref);
  }

  /** How many times the side effect of `ref` happened. */
  hits(ref: string): number {
    return this.requestsFor(ref).length;
  }
}

function parseArguments(req: RecordedRequest): CrashToolArguments {
  try {
    return JSON.parse(req.body) as CrashToolArguments;
  } catch {
    return { ref: '' };
  }
}
