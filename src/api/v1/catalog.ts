import { readResearch, readSourceCatalog } from '../../query/catalog-lists.ts';
import type { PayloadFunction } from './context.ts';

/**
 * Endpoint 6: every research finding, newest first. The text is the service's own; only the
 * list of series a note is about is cut down to series of redistributable sources.
 */
export const getResearch: PayloadFunction = async ({ db }) => {
  const rows = await readResearch(db);
  return {
    data: rows.map((row) => ({
      id: row.id,
      slug: row.slug,
      title: row.title,
      published_at: row.published_at,
      authors: row.authors,
      tags: row.tags,
      summary: row.summary,
      series: row.series,
      body_markdown: row.body_markdown,
    })),
  };
};

/** Endpoint 7: every catalog source with its licence, rights class and attribution (metadata only, never data). */
export const getSources: PayloadFunction = async ({ db }) => {
  const rows = await readSourceCatalog(db);
  return {
    data: rows.map((row) => ({
      id: row.id,
      name: row.name,
      publisher: row.publisher,
      url: row.url,
      licence: row.licence,
      licence_url: row.licence_url,
      rights: row.rights,
      redistributable: row.redistributable,
      attribution: row.attribution,
      cadence: row.cadence,
      sample: row.sample,
      series_count: row.series_count,
    })),
  };
};
