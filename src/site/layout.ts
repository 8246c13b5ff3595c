import { escapeHtml } from './escape-html.ts';
import { formatTimestamp } from './format.ts';

/** What every page's frame (head, navigation, footer) shows. */
export interface PageFrame {
  title: string;
  /** The page's own path (`/markets/gold/`): marks the current navigation entry. */
  path: string;
  description?: string;
  /** The snapshot the page shows. */
  snapshot: string;
  /** RFC 3339 time the page was rendered (the build time for static pages). */
  renderedAt: string;
  /** Rendered per request by the server rather than by the build. */
  live?: boolean;
}

/** The site's sections, in navigation order. */
export const NAVIGATION: ReadonlyArray<{ href: string; label: string }> = [
  { href: '/', label: 'Home' },
  { href: '/docs/api/', label: 'API' },
  { href: '/markets/', label: 'Markets' },
  { href: '/macro/', label: 'Macro' },
  { href: '/fx/', label: 'FX rates' },
  { href: '/sectors/', label: 'Sectors' },
  { href: '/sources/', label: 'Sources' },
  { href: '/status/', label: 'Status' },
];

const SITE_NAME = 'Market and Macro Data Service';

function isCurrent(href: string, path: string): boolean {
  return href === '/' ? path === '/' : path.startsWith(href);
}

/**
 * The document up to the opening of `<main>`: head, skip link, header and navigation. The
 * Astro layout and the status page both use it, so every page has the same frame.
 */
export function renderPageStart(frame: Pick<PageFrame, 'title' | 'path' | 'description'>): string {
  const nav = NAVIGATION.map(
    (item) =>
      `<li><a href="${item.href}"${isCurrent(item.href, frame.path) ? ' aria-current="page"' : ''}>${escapeHtml(item.label)}</a></li>`,
  ).join('');
  const description = frame.description ?? `${SITE_NAME}: ${frame.title}`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(frame.title)} · ${SITE_NAME}</title>`,
    `<meta name="description" content="${escapeHtml(description)}">`,
    '<link rel="icon" href="/favicon.svg" type="image/svg+xml">',
    '<link rel="stylesheet" href="/site.css">',
    '</head>',
    '<body>',
    '<a class="skip-link" href="#main">Skip to content</a>',
    '<header class="site-header"><div class="wrap">',
    `<a class="brand" href="/">MMDS <span>${SITE_NAME}</span></a>`,
    `<nav aria-label="Sections"><ul>${nav}</ul></nav>`,
    '</div></header>',
    '<main id="main" class="wrap" tabindex="-1">',
  ].join('\n');
}

/** The document from the closing of `<main>`: the footer with the snapshot shown. */
export function renderPageEnd(frame: PageFrame): string {
  const when = `${frame.live ? 'rendered' : 'built'} ${formatTimestamp(frame.renderedAt)}`;
  return [
    '</main>',
    '<footer class="site-footer"><div class="wrap">',
    `<p>Snapshot <code>${escapeHtml(frame.snapshot)}</code>, ${escapeHtml(when)}. The data on these pages is served as JSON under <code>/api/v1/</code> (<a href="/docs/api/">API reference</a>); the terms of each source are on <a href="/sources/">Sources</a>.</p>`,
    '</div></footer>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** A whole HTML document: the frame around `main` (already escaped HTML). */
export function renderDocument(frame: PageFrame, main: string): string {
  return `${renderPageStart(frame)}\n${main}\n${renderPageEnd(frame)}`;
}
