/**
 * The rate limit a key carries (CONTRACT section 3): the default when none is given and the
 * largest allowed. In the contract, beside the scopes a key holds, so that the keys that apply
 * them and the API reference that documents them read the same numbers.
 */

/** Rate limit of a key when none is given (CONTRACT section 3). */
export const DEFAULT_RATE_LIMIT = 60;
export const MAX_RATE_LIMIT = 100_000;
