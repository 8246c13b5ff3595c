import { describe, expect, it } from 'vitest';
import { renderRedirectsFile } from '../../../src/build/host-rules.ts';
import { renderNginxConf } from '../../../src/build/nginx-conf.ts';
import { listStaticErrors, SERVER_ONLY } from '../../../src/build/static-errors.ts';

/**
 * The change feed (docs/api/changes.md) is public but never pre-rendered: the static host rules
 * must hand it to mmds serve (nginx) or say that only the server answers it (Netlify/Cloudflare
 * `_redirects`), never answer the keyed endpoints' 401 or the unknown path's 404.
 */
describe('host rules of the change feed', () => {
  it('answers the server_only body in _redirects, and keeps the 401 for keyed endpoints', () => {
    const redirects = renderRedirectsFile([], new Map()).split('\n');
    expect(redirects).toContain(`/api/v1/changes  /${SERVER_ONLY.file}  503`);
    expect(redirects).toContain('/api/v1/observations  /api/v1/_errors/unauthorized.json  401');
    expect(listStaticErrors().map((error) => error.file)).toContain(SERVER_ONLY.file);
    expect(JSON.parse(SERVER_ONLY.body)).toMatchObject({ error: { code: 'unavailable' } });
  });

  it('sends /api/v1/changes and /api/v1/changes.csv to mmds serve in nginx', () => {
    const conf = renderNginxConf({
      manifest: {
        format: 1,
        snapshot: '20261120T100000Z-d7fa0f38',
        pipeline_version: 'test',
        generated_at: '2026-11-20T10:00:00Z',
        routes: [],
        files: [],
      },
      root: '/srv/dist',
      errors: listStaticErrors(),
    } as Parameters<typeof renderNginxConf>[0]);
    const serve = (path: string) =>
      `'~^${path.replace(/[./]/g, (c) => (c === '.' ? '\\\\.' : c))}(\\\\?|$)' '';`;
    expect(conf).toContain(serve('/api/v1/changes'));
    expect(conf).toContain(serve('/api/v1/changes.csv'));
  });
});
