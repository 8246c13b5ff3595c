import { escapeHtml } from './escape-html.ts';
import { renderPageStart } from './layout.ts';

/** What the page says about the refusal: the numbers of the 429's own headers. */
export interface RateLimitedPage {
  /** The path the browser asked for (marks the navigation entry). */
  path: string;
  /** Requests per minute of the budget that is spent (X-RateLimit-Limit). */
  limit: number;
  /** Whole seconds until a request is accepted again (Retry-After). */
  retryAfter: number;
  requestId: string;
}

/**
 * The HTML page a browser gets instead of the JSON envelope when a live page (the status page)
 * is refused by the rate limit: the same frame and navigation as every page, what happened, when
 * to try again, and that the rest of the site is not limited (docs/rate-limits.md). Rendered per
 * refusal (the wait differs each time), never cached. No footer: it shows no snapshot.
 */
export function renderRateLimitedPage(page: RateLimitedPage): string {
  const seconds = `${page.retryAfter} second${page.retryAfter === 1 ? '' : 's'}`;
  return [
    renderPageStart({
      title: 'Too many requests',
      path: page.path,
      description: 'This address has sent too many requests to the live pages and the API.',
    }),
    '<h1>Too many requests</h1>',
    `<p>This address has used its ${page.limit} requests per minute for the live pages and the API. Try again in ${escapeHtml(seconds)}: this page then loads as usual.</p>`,
    '<p>The other pages of this site (markets, macro, FX rates, the API reference) are not limited: <a href="/">Home</a>, <a href="/docs/api/">API reference</a>. A script that needs more requests uses an API key, which has a limit of its own.</p>',
    `<p>Request id <code>${escapeHtml(page.requestId)}</code>.</p>`,
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
