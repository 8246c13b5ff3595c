import { H3 } from 'h3';

/** How the app learns the client address (the socket's, or a trusted proxy's X-Forwarded-For entry). */
export type ClientIpResolver = (request: Request & { ip?: string }) => string;

/**
 * Creates the h3 app without listening: every request that reaches it (all but the pre-rendered
 * anonymous ones, which the public fast path in front of it answers), whatever its method and
 * path, goes to the one handler, which owns routing, errors and headers (so 404s and 405s are the
 * contract's envelopes too). Tests call `app.fetch()` or serve it on a random port.
 */
export function createApp(
  handle: (request: Request, clientIp: string) => Promise<Response>,
  resolveClientIp: ClientIpResolver,
): H3 {
  // A malformed escape (`/api/%`, `/%zz`) would get h3's own 400 body; the handler reads the
  // raw path and never decodes it, so let it answer with the contract's envelope.
  const app = new H3({ allowMalformedURL: true });
  app.all('/**', (event) => handle(event.req, resolveClientIp(event.req as Request & { ip?: string })));
  return app;
}
