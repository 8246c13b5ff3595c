import pkg from '../package.json' with { type: 'json' };

/** The pipeline's version, recorded in every batch and snapshot. */
export const PIPELINE_VERSION: string = pkg.version;
