import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PublisherApi } from './loopback-publisher.ts';

export {
  type BlsApiEmulator,
  type BlsApiEmulatorOptions,
  createBlsApiEmulator,
} from './publisher-apis-bls.ts';
export { type BlsDataRow, readRealBlsSeries } from './publisher-apis-bls-data.ts';
export {
  createFredApiEmulator,
  type FredApiEmulator,
  type FredApiEmulatorOptions,
} from './publisher-apis-fred.ts';
export { type AlfredRow, readRealPayemsVintages } from './publisher-apis-fred-data.ts';

/** One request an emulator answered: method, path, query and body as received. */
export interface RecordedApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
}

/** Status codes to answer with before the emulator behaves again (5xx for retry tests). */
export interface FaultQueue {
  /** Answers the next `times` requests with `status` (and a plain-text body). */
  failNext(times: number, status?: number): void;
}

/** An emulated publisher API for `startLoopbackPublisher({ apis })`, with what it was asked. */
export interface EmulatedApi extends PublisherApi, FaultQueue {
  requests: RecordedApiRequest[];
}

/** What a protocol handler sees of one request, and answers with. */
export interface ApiCall {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
}

/** A protocol handler's answer. */
export interface ApiAnswer {
  status: number;
  json: unknown;
}

/**
 * Wraps a protocol handler as an EmulatedApi: reads the request body, records the request,
 * answers queued faults first, then writes the handler's JSON answer.
 */
export function createEmulatedApi(prefix: string, answer: (call: ApiCall) => ApiAnswer): EmulatedApi {
  const faults: number[] = [];
  const requests: RecordedApiRequest[] = [];
  return {
    prefix,
    requests,
    failNext(times, status = 503) {
      for (let index = 0; index < times; index++) faults.push(status);
    },
    async handle(req: IncomingMessage, res: ServerResponse) {
      const url = new URL(req.url ?? '/', 'http://emulator');
      const body = await readRequestBody(req);
      const call: ApiCall = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body,
      };
      requests.push(call);
      const fault = faults.shift();
      if (fault !== undefined) {
        res.writeHead(fault, { 'content-type': 'text/plain' }).end(`emulated fault ${fault}\n`);
        return;
      }
      const { status, json } = answer(call);
      const text = JSON.stringify(json);
      res
        .writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(Buffer.byteLength(text)),
        })
        .end(text);
    },
  };
}

async function readRequestBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
