import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REQUEST_LINE_KEYS, type RequestLogLine, requestLineFields } from '../../../src/server/access-log.ts';
import { createLineLog } from '../../../src/server/log-lines.ts';

/** Any text a request could bring into its line: ASCII, quotes, control characters, lone surrogates. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('/api/v1/fx/ecb', '10.0.0.1', '::1', 'a"b', 'a\\b', 'tab\there', '\u2028', '\ud800'),
);

const anyLine: fc.Arbitrary<RequestLogLine> = fc.record({
  event: fc.constant('request' as const),
  request_id: anyText,
  method: anyText,
  path: anyText,
  status: fc.integer({ min: 100, max: 599 }),
  ms: fc.oneof(fc.double({ noNaN: false }), fc.constantFrom(0, -0, 0.1, 12.3, 1e21)),
  ip: anyText,
  key_id: fc.option(anyText, { nil: null }),
  snapshot: fc.option(anyText, { nil: null }),
});

describe('requestLineFields', () => {
  it('writes exactly what JSON.stringify writes for any request line', () => {
    fc.assert(
      fc.property(anyLine, (line) => {
        expect(`{${requestLineFields(line)}}`).toBe(JSON.stringify(line));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes every field of the type, in its order', () => {
    const line: RequestLogLine = {
      event: 'request',
      request_id: 'abcdefghijkl',
      method: 'GET',
      path: '/api/v1/fx/ecb',
      status: 200,
      ms: 0.4,
      ip: '10.0.0.1',
      key_id: null,
      snapshot: '20261129T210458Z-1316f4a4',
    };
    expect(Object.keys(JSON.parse(`{${requestLineFields(line)}}`))).toEqual([...REQUEST_LINE_KEYS]);
  });

  it('is what the line log writes for a request line, after the time', () => {
    const written: string[] = [];
    const { log, flush } = createLineLog((text) => written.push(text), 2);
    const line: RequestLogLine = {
      event: 'request',
      request_id: 'abcdefghijkl',
      method: 'HEAD',
      path: '/api/v1/"odd"\n',
      status: 304,
      ms: 1.5,
      ip: '::1',
      key_id: 'aaaaaaaaaaaa',
      snapshot: null,
    };
    log(line);
    log({ event: 'other', n: 1 });
    flush();
    const [first, second] = written
      .join('')
      .trimEnd()
      .split('\n')
      .map((text) => JSON.parse(text));
    expect(first).toEqual({ ts: expect.any(String), worker: 2, ...line });
    expect(Object.keys(first)).toEqual(['ts', 'worker', ...REQUEST_LINE_KEYS]);
    expect(second).toEqual({ ts: expect.any(String), worker: 2, event: 'other', n: 1 });
  });
});
