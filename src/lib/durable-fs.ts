// Durable writes to the file system: fsync a path, replace a file atomically, rename a directory
// into place; each one survives a crash whole or not at all. No knowledge of what the files hold.
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Flushes a file or directory to disk, so that a rename after it is durable. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `path` with `content` atomically: write a temporary file, fsync it, rename it over
 * the target, fsync the directory. A crash leaves either the old or the new content.
 */
export function writeFileAtomic(path: string, content: string): void {
  const temporary = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(temporary, content);
    fsyncPath(temporary);
    renameSync(temporary, path);
  } catch (error) {
    // A full disk fails the write: leave no half-written temporary file behind.
    rmSync(temporary, { force: true });
    throw error;
  }
  fsyncPath(dirname(path));
}

/** Renames a fully written directory into place and makes the rename durable. */
export function renameDurably(from: string, to: string): void {
  renameSync(from, to);
  fsyncPath(dirname(to));
}
