import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { StoreLayout } from './layout.ts';

/**
 * Calls `onChange` soon after a publish switches CURRENT, instead of at the next poll (bench
 * section i: a poll of 1 s made most of the time from a publish to a webhook or an SSE client).
 * The publish replaces CURRENT by a rename, so the data directory is watched (a watch on the
 * file would stay on the replaced inode) and only events naming CURRENT count. A hint only:
 * callers keep polling, because a watch can miss events (network file systems, a data directory
 * created after the watch, a platform without inotify); when the watch cannot be set up it
 * returns a watcher that does nothing. `onChange` may be called for a change that is not a
 * switch (the temporary file's events are ignored, but the caller compares ids anyway).
 */
export function watchCurrent(layout: StoreLayout, onChange: () => void): { close(): void } {
  const name = basename(layout.currentFile);
  let watcher: FSWatcher;
  try {
    watcher = watch(dirname(layout.currentFile), { persistent: false }, (_type, file) => {
      // Some platforms give no file name: then any change in the directory may be the switch.
      if (file === null || file === name) onChange();
    });
  } catch {
    return { close() {} };
  }
  // A watch that fails later (the directory removed) leaves the callers' polling in charge.
  watcher.on('error', () => watcher.close());
  return { close: () => watcher.close() };
}
