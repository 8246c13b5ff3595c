import { describe, expect, it } from 'vitest';
import { PARAMS } from '../../../src/contract/params.ts';
import { paramSpec, ROUTES } from '../../../src/contract/routes.ts';
import { renderInlineMarkdown, renderMarkdown } from '../../../src/site/markdown.ts';
import { textOfHtml } from '../../helpers/html-text.ts';

describe('the site Markdown (src/site/markdown.ts)', () => {
  it('renders code spans and links docs files and endpoint numbers to pages a reader can open', () => {
    expect(renderInlineMarkdown('Details: docs/api/revisions.md, and `docs/keys.md`.')).toBe(
      'Details: <a href="/docs/api/revisions/">docs/api/revisions.md</a>, and <a href="/docs/keys/"><code>docs/keys.md</code></a>.',
    );
    expect(renderInlineMarkdown('endpoints 5 and 8, endpoint 99')).toBe(
      'endpoints <a href="/docs/api/#macro-series">5</a> and <a href="/docs/api/#observations">8</a>, endpoint 99',
    );
    expect(renderMarkdown('one\n\ntwo')).toBe('<p>one</p>\n<p>two</p>\n');
  });

  it('keeps placeholders like <key> as text (raw HTML is never passed through)', () => {
    expect(renderInlineMarkdown('Bearer <key>, period,<key1>,<key2> <b>x</b>')).toBe(
      'Bearer &lt;key&gt;, period,&lt;key1&gt;,&lt;key2&gt; &lt;b&gt;x&lt;/b&gt;',
    );
  });

  it('loses no character of any text of the route table: what a reader sees is the text without its backticks', () => {
    const texts = [
      ...ROUTES.flatMap((route) => [
        route.summary,
        route.description,
        ...route.query.flatMap((name) => [
          paramSpec(route, name).description,
          paramSpec(route, name).expected,
        ]),
      ]),
      ...Object.values(PARAMS).flatMap((spec) => [spec.description, spec.expected]),
    ];
    for (const text of texts)
      expect(textOfHtml(renderInlineMarkdown(text))).toBe(text.replaceAll('`', '').replace(/\s+/g, ' '));
  });
});
