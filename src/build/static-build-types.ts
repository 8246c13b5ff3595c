/** What `mmds build` is told and what it answers (run-static-build.ts). */
import type { StoreLayout } from '../store/layout.ts';

/** Options of `mmds build`. */
export interface StaticBuildOptions {
  layout: StoreLayout;
  snapshotId: string;
  /** The project root (where astro.config.mjs is). */
  root: string;
  outDir: string;
  now: Date;
  pipelineVersion: string;
  /** Rebuild even if dist/ already holds this snapshot, rendering every file (nothing taken from it). */
  force?: boolean;
  /**
   * Pages, assets, the OpenAPI document and the bulk files only, without the payload files: a
   * tenth of the work. `npm start` serves that at once (the server renders the public routes
   * from the snapshot, as it does for unbuilt filters) while the full build runs.
   */
  siteOnly?: boolean;
  /** Reports a phase, with a count of files when the phase renders them. */
  progress?: (message: string, count?: { done: number; total: number }) => void;
}

/** The outcome of a build. */
export interface StaticBuildResult {
  status: 'built' | 'unchanged';
  snapshot: string;
  files: number;
  bytes: number;
  routes: number;
  seconds: number;
  /** Files this build wrote (rendered, assets, bulk) and took unchanged from the earlier one (src/build/reuse.ts). */
  written?: number;
  reused?: number;
  /** Why nothing was taken from the earlier build (null: some files were, or could have been). */
  full_because?: string | null;
}
