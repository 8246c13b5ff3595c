import { Unzip, UnzipInflate, unzipSync } from 'fflate';
import { FetchError, MIRROR_SETTING } from './fetch-error.ts';

/** One file inside a zip archive, as its central directory lists it. */
export interface ZipMember {
  name: string;
  /** Uncompressed size the directory declares. */
  originalSize: number;
}

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const EMPTY_ZIP_MAGIC = [0x50, 0x4b, 0x05, 0x06];
const CHUNK = 1 << 20;

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((byte, index) => bytes[index] === byte);
}

/** Lists the archive's members from its central directory (directories excluded). */
export function listZipMembers(bytes: Uint8Array, url: string): ZipMember[] {
  if (!startsWith(bytes, ZIP_MAGIC) && !startsWith(bytes, EMPTY_ZIP_MAGIC)) {
    throw new FetchError(
      url,
      `the download is not a zip archive (no PK signature); check that the base URL (${MIRROR_SETTING}) points at the publisher or a faithful mirror`,
      { kind: 'bad_zip' },
    );
  }
  const members: ZipMember[] = [];
  try {
    // A filter that declines every member reads only the central directory, which sits at the
    // end of the file: a cut-off download fails here without inflating anything.
    unzipSync(bytes, {
      filter: (file) => {
        if (!file.name.endsWith('/')) members.push({ name: file.name, originalSize: file.originalSize });
        return false;
      },
    });
  } catch (error) {
    throw truncatedZip(url, bytes.length, error);
  }
  return members;
}

function truncatedZip(url: string, bytes: number, cause: unknown): FetchError {
  return new FetchError(
    url,
    `the zip archive is incomplete or damaged (${bytes} bytes, ${(cause as Error).message}); download it again, or point ${MIRROR_SETTING} at a mirror`,
    { kind: 'bad_zip', cause },
  );
}

/**
 * Streams every member of the archive through the inflater, handing each decompressed chunk to
 * `onChunk`; checks each member's size against the central directory, because fflate does not
 * verify CRCs and a damaged archive must not pass as a short file.
 */
export function inflateZip(
  bytes: Uint8Array,
  url: string,
  onChunk: (member: string, chunk: Uint8Array, final: boolean) => void,
): ZipMember[] {
  const members = listZipMembers(bytes, url);
  const expected = new Map(members.map((member) => [member.name, member.originalSize]));
  const seen = new Map<string, number>();
  let failure: unknown = null;
  const unzip = new Unzip((file) => {
    if (file.name.endsWith('/')) return;
    seen.set(file.name, 0);
    file.ondata = (error, chunk, final) => {
      if (error) {
        failure ??= error;
        return;
      }
      seen.set(file.name, (seen.get(file.name) ?? 0) + chunk.length);
      onChunk(file.name, chunk, final);
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    for (let offset = 0; offset < bytes.length; offset += CHUNK) {
      unzip.push(bytes.subarray(offset, offset + CHUNK), false);
    }
    unzip.push(new Uint8Array(0), true);
  } catch (error) {
    failure ??= error;
  }
  if (failure !== null) throw truncatedZip(url, bytes.length, failure);
  for (const [name, size] of expected) {
    if (seen.get(name) !== size) {
      throw truncatedZip(
        url,
        bytes.length,
        new Error(`member ${name} inflates to ${seen.get(name) ?? 0} of ${size} bytes`),
      );
    }
  }
  return members;
}

/** Throws a FetchError unless the bytes are a zip archive that inflates completely. */
export function assertReadableZip(bytes: Uint8Array, url: string): ZipMember[] {
  return inflateZip(bytes, url, () => {});
}
