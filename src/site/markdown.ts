import { defineMdastPlugin, markdownToHtml } from 'satteri';
import { ROUTES } from '../contract/routes.ts';

/**
 * Markdown to HTML for the site: the docs/ pages and the texts of the route table (descriptions
 * of endpoints and parameters, written with backtick code spans). Sätteri is the Markdown
 * processor Astro itself renders with. Three rules of ours on top:
 * - raw HTML is text: the texts write placeholders like `<key>` and `period,<key1>,...` outside
 *   code spans, which a browser would otherwise take for tags and hide;
 * - a mention of a file of docs/ (`docs/api/revisions.md`) links to its page on the site
 *   (DOC_PAGE_BASE), since a reader of the site cannot open the repository's files;
 * - "endpoint 3", "endpoints 5 and 8" link each number to that endpoint on the API reference, so
 *   the one numbering (the route table's `number`) reads the same everywhere.
 */

/** Where the site serves the page of `docs/<name>.md`: `/docs/<name>/`. */
export const DOC_PAGE_BASE = '/docs/';

/** The API reference page, where each endpoint's section has the id of its route. */
export const API_REFERENCE_PATH = '/docs/api/';

const DOC_MENTION = /^docs\/([a-z0-9/_-]+)\.md$/;
/** A mention of a docs file or of endpoint numbers in running text. */
const MENTIONS = /\bdocs\/([a-z0-9/_-]+)\.md\b|\b([Ee]ndpoints?) (\d+(?:(?:, | and | or )\d+)*)\b/g;

/** The page of the docs file `docs/<name>.md`. */
export function docPagePath(name: string): string {
  return `${DOC_PAGE_BASE}${name}/`;
}

/** The API reference's anchor of an endpoint number (its first route: /releases before /releases.ics). */
export function endpointHref(number: number): string | null {
  const route = ROUTES.find((r) => r.number === number);
  return route ? `${API_REFERENCE_PATH}#${route.id}` : null;
}

type Inline =
  | { type: 'text'; value: string }
  | { type: 'link'; url: string; children: Array<{ type: 'text'; value: string }> };

/** Splits a text into text and links at the mentions MENTIONS finds; null when there is none. */
function linkMentions(text: string): Inline[] | null {
  const parts: Inline[] = [];
  let last = 0;
  const push = (value: string) => {
    if (value !== '') parts.push({ type: 'text', value });
  };
  for (const match of text.matchAll(MENTIONS)) {
    push(text.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[1] !== undefined) {
      parts.push({ type: 'link', url: docPagePath(match[1]), children: [{ type: 'text', value: match[0] }] });
      continue;
    }
    // "endpoints 5 and 8": the word stays text, each number that names an endpoint links.
    push(`${match[2]} `);
    const numbers = match[3]!;
    let at = 0;
    for (const n of numbers.matchAll(/\d+/g)) {
      push(numbers.slice(at, n.index));
      const href = endpointHref(Number(n[0]));
      if (href) parts.push({ type: 'link', url: href, children: [{ type: 'text', value: n[0] }] });
      else push(n[0]);
      at = n.index + n[0].length;
    }
    push(numbers.slice(at));
  }
  if (parts.length === 0) return null;
  push(text.slice(last));
  return parts;
}

const siteRules = defineMdastPlugin({
  name: 'mmds-site-rules',
  html(node, ctx) {
    ctx.replaceNode(node, { type: 'text', value: node.value });
  },
  inlineCode(node, ctx) {
    const doc = DOC_MENTION.exec(node.value);
    if (doc && ctx.parent(node)?.type !== 'link')
      ctx.wrapNode(node, { type: 'link', url: docPagePath(doc[1]!), children: [] });
  },
  text(node, ctx) {
    if (ctx.parent(node)?.type === 'link') return;
    const parts = linkMentions(node.value);
    if (parts) ctx.replaceNode(node, parts);
  },
});

/** A Markdown document (or paragraphs) as HTML. */
export function renderMarkdown(markdown: string): string {
  return markdownToHtml(markdown, { mdastPlugins: [siteRules] }).html;
}

/** One paragraph of Markdown as inline HTML (no <p>), for a table cell or a sentence. */
export function renderInlineMarkdown(markdown: string): string {
  const html = renderMarkdown(markdown).trim();
  const paragraph = /^<p>([\s\S]*)<\/p>$/.exec(html);
  return paragraph && !paragraph[1]!.includes('<p>') ? paragraph[1]! : html;
}
