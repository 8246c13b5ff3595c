import { randomBytes } from 'node:crypto';

const ID_LENGTH = 12;
const POOL_IDS = 512;
let idPool = '';
let idPoolOffset = 0;

/**
 * Returns a new request id: 12 base64url characters (72 random bits), cut from a pool of random
 * bytes refilled 512 ids at a time (one `randomBytes` call instead of one per request).
 */
export function createRequestId(): string {
  if (idPoolOffset >= idPool.length) {
    idPool = randomBytes((ID_LENGTH / 4) * 3 * POOL_IDS).toString('base64url');
    idPoolOffset = 0;
  }
  idPoolOffset += ID_LENGTH;
  return idPool.slice(idPoolOffset - ID_LENGTH, idPoolOffset);
}
