/** What a series search reads as words (/api/v1/series/search): the parameter's check and the ranking share it. */

/** Words of a search text: runs of letters and digits, any case (FRED's full-text words). */
export const SEARCH_WORD = /[\p{L}\p{N}]+/gu;
/** At most this many words are looked at; more is a 400. */
export const SEARCH_MAX_WORDS = 10;
