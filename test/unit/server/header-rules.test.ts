import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StaticRoute } from '../../../src/build/build-manifest.ts';
import { renderHeadersFile } from '../../../src/build/host-rules.ts';
import { renderNginxConf } from '../../../src/build/nginx-conf.ts';
import { listStaticErrors } from '../../../src/build/static-errors.ts';
import {
  BASE_HEADERS,
  EXPOSED_HEADERS,
  NO_STORE,
  SITE_CACHE_CONTROL,
  varyFor,
} from '../../../src/contract/header-rules.ts';
import { ROUTES } from '../../../src/contract/routes.ts';
import { answerClientError } from '../../../src/server/answer-client-error.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';

/**
 * One module holds the response header rules (src/contract/header-rules.ts, issue 33): the built
 * `_headers`, `nginx.conf`, the raw-socket error answer and the server's own code take their
 * fields from it. Each output is read back here and compared with the rules, field by field.
 */

const SNAPSHOT = '20261120T100000Z-d7fa0f38';

/** One payload file per route that pre-renders, as the build manifest lists them. */
const ROUTE_FILES: StaticRoute[] = ROUTES.filter((route) => route.prerender !== 'none').map((route) => ({
  path: route.path,
  query: {},
  file: `${route.path.slice(1)}/index.json`,
  status: 200,
  route_id: route.id,
  cache_control: `public, max-age=${route.maxAge}`,
}));

/** The `_headers` blocks, by path: the header lines under each. */
function parseHeadersFile(text: string): Map<string, Map<string, string>> {
  const blocks = new Map<string, Map<string, string>>();
  let current: Map<string, string> | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    if (!line.startsWith('  ')) {
      current = new Map();
      blocks.set(line, current);
      continue;
    }
    const [name, ...rest] = line.trim().split(': ');
    current!.set(name!.toLowerCase(), rest.join(': '));
  }
  return blocks;
}

describe('the response header rules', () => {
  it('give the built _headers its CORS, exposed headers, nosniff and each file its Vary', () => {
    const blocks = parseHeadersFile(renderHeadersFile(ROUTE_FILES, listStaticErrors()));
    const api = blocks.get('/api/*')!;
    for (const [name, value] of BASE_HEADERS) expect(api.get(name), name).toBe(value);
    expect(api.get('access-control-expose-headers')).toBe(EXPOSED_HEADERS);
    for (const file of ROUTE_FILES) {
      const route = ROUTES.find((candidate) => candidate.id === file.route_id)!;
      const block = blocks.get(`/${file.file}`)!;
      expect(block.get('vary'), file.file).toBe(varyFor(route));
      expect(block.get('cache-control'), file.file).toBe(file.cache_control);
    }
    // Both values occur: routes with a keyed view vary by Authorization as well.
    expect(new Set(ROUTE_FILES.map((file) => blocks.get(`/${file.file}`)!.get('vary')))).toEqual(
      new Set(['Accept-Encoding', 'Authorization, Accept-Encoding']),
    );
    for (const error of listStaticErrors())
      expect(blocks.get(`/${error.file}`)!.get('cache-control')).toBe(NO_STORE);
  });

  it('give nginx.conf the same fields', () => {
    const conf = renderNginxConf({
      manifest: {
        format: 1,
        snapshot: SNAPSHOT,
        pipeline_version: 'test',
        generated_at: '2026-11-20T10:00:00Z',
        routes: ROUTE_FILES,
        files: [],
      },
      root: '/srv/dist',
      errors: listStaticErrors(),
    } as Parameters<typeof renderNginxConf>[0]);
    expect(conf).toContain(`add_header Access-Control-Expose-Headers '${EXPOSED_HEADERS}' always;`);
    expect(conf).toContain(`add_header Cache-Control "${SITE_CACHE_CONTROL}" always;`);
    expect(conf).toContain(`add_header Cache-Control "${NO_STORE}" always;`);
    expect(conf).toContain(`default "${varyFor({ access: { kind: 'public' } })}";`);
    for (const file of ROUTE_FILES) {
      const route = ROUTES.find((candidate) => candidate.id === file.route_id)!;
      const entry = `'/${file.file}' "${varyFor(route)}";`;
      if (route.access.kind === 'public-or-scope') expect(conf).toContain(entry);
      else expect(conf).not.toContain(entry);
    }
  });

  describe('the raw-socket error answer', () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((_request, response) => response.end());
      server.on('clientError', (error: NodeJS.ErrnoException, socket) =>
        answerClientError(error, socket, 16_384),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('carries no-store and every field of every response', async () => {
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.write('GET /a\u0000b HTTP/1.1\r\nHost: x\r\n\r\n'),
        );
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('end', () => resolve(Buffer.concat(chunks).toString()));
        socket.on('error', reject);
      });
      const [head, body] = reply.split('\r\n\r\n') as [string, string];
      const fields = new Map(
        head
          .split('\r\n')
          .slice(1)
          .map((line) => {
            const at = line.indexOf(': ');
            return [line.slice(0, at).toLowerCase(), line.slice(at + 2)] as const;
          }),
      );
      expect(head.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
      expect(fields.get('cache-control')).toBe(NO_STORE);
      for (const [name, value] of BASE_HEADERS) expect(fields.get(name), name).toBe(value);
      expect(JSON.parse(body)).toMatchObject({ error: { code: 'invalid_parameter' } });
    });
  });

  it('are the only Cache-Control values written in src/server', () => {
    const offending = ['src/server'].flatMap((folder) => {
      const dir = join(REPO_ROOT, folder);
      const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) =>
        file.endsWith('.ts'),
      );
      return files
        .filter((file) => /no-store|max-age/.test(readFileSync(join(dir, file), 'utf8')))
        .map((file) => `${folder}/${file}`);
    });
    expect(offending).toEqual([]);
  });
});
