import type { BuildManifest } from './build-manifest.ts';

/**
 * The ETags nginx sends for the built API files (src/build/nginx-conf.ts includes these lines):
 * the manifest's, which are the ones mmds serve renders for the same request
 * (api/v1/resource-etag.ts), not nginx's own (mtime and size, which differ between two builds of
 * the same data and from mmds serve's). nginx answers 304 when If-None-Match is that one ETag;
 * a list of ETags or a weak one gets the full answer (nginx compares the field as a string).
 */
export interface NginxEtagLines {
  /** For the http {} context. */
  maps: string[];
  /** For the API location, after its error answers (they carry no ETag). */
  location: string[];
}

/** The nginx lines giving each built file served under /api/ its manifest ETag. */
export function renderNginxEtags(manifest: BuildManifest, servedFiles: readonly string[]): NginxEtagLines {
  const etags = new Map(manifest.files.map((file) => [file.file, file.etag]));
  const lines = servedFiles.flatMap((file) => {
    const etag = etags.get(file);
    return etag === undefined ? [] : [`    "${file}" '${etag}';`];
  });
  return {
    maps: [
      "# The ETag of each built API file: the manifest's, as mmds serve gives the same request.",
      'map $mmds_file $mmds_etag {',
      '    default "";',
      ...lines,
      '}',
      '',
      '# If-None-Match, or "-" when absent (never an ETag), to compare with $mmds_etag.',
      'map $http_if_none_match $mmds_if_none_match {',
      '    "" "-";',
      '    default $http_if_none_match;',
      '}',
      '',
    ],
    location: [
      '        etag off;',
      '        if ($mmds_if_none_match = $mmds_etag) { return 304; }',
      '        add_header ETag $mmds_etag always;',
    ],
  };
}
