import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { docPagePath, renderMarkdown } from '../markdown.ts';

/** The project's documentation, each Markdown file of which the site renders as a page. */
export const DOCS_DIR = fileURLToPath(new URL('../../../docs/', import.meta.url));

/** One file of docs/ as a page of the site. */
export interface DocPage {
  /** The file under docs/ without `.md`: `api/revisions`, `keys`. */
  name: string;
  /** Where the site serves it: `/docs/api/revisions/`. */
  path: string;
  /** The text of its first heading, Markdown code spans removed. */
  title: string;
  html: string;
}

function listMarkdown(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) listMarkdown(path, out);
    else if (entry.endsWith('.md')) out.push(path);
  }
}

/**
 * Every Markdown file of docs/ rendered as a page (the docs mention each other as
 * `docs/<name>.md`, which the rendering links to these pages). `docs/api/` itself is the API
 * reference (src/pages/docs/api/index.astro): no file of docs/ is called `api.md`.
 */
export function readDocPages(dir = DOCS_DIR): DocPage[] {
  const files: string[] = [];
  listMarkdown(dir, files);
  return files.map((file) => {
    const name = relative(dir, file).replace(/\\/g, '/').replace(/\.md$/, '');
    const markdown = readFileSync(file, 'utf8');
    const heading = /^# (.+)$/m.exec(markdown)?.[1] ?? name;
    return {
      name,
      path: docPagePath(name),
      title: heading.replaceAll('`', ''),
      html: renderMarkdown(markdown),
    };
  });
}
