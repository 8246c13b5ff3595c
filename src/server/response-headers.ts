import { BASE_HEADERS, type HeaderPairs } from '../contract/header-rules.ts';

export { BASE_HEADERS, type HeaderPairs } from '../contract/header-rules.ts';

/** The methods every resource answers. */
export const ALLOW = 'GET, HEAD, OPTIONS';

/**
 * The header fields of a response being built on the general path, with the semantics of the
 * web `Headers` the code relied on (`set` replaces a field whatever the case of its name, `append`
 * joins with ", "), kept in two arrays: a web Headers object validated, normalised and sorted
 * every field again, about 4 µs per response. Names are kept in lower case, as they are sent.
 * Values come from this code, never from a request; node:http still checks them when it writes.
 */
export class ResponseHeaders {
  readonly #names: string[] = [];
  readonly #values: string[] = [];

  constructor(fields: HeaderPairs = []) {
    for (const [name, value] of fields) this.set(name, value);
  }

  /** Sets a field, replacing any field of that name. */
  set(name: string, value: string): void {
    const key = name.toLowerCase();
    const index = this.#names.indexOf(key);
    if (index < 0) {
      this.#names.push(key);
      this.#values.push(value);
    } else {
      this.#values[index] = value;
    }
  }

  /** Adds a value to a field (comma-joined, as Headers does), or sets it when absent. */
  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const index = this.#names.indexOf(key);
    if (index < 0) this.set(key, value);
    else this.#values[index] = `${this.#values[index]}, ${value}`;
  }

  /** The value of a field, or null. */
  get(name: string): string | null {
    const index = this.#names.indexOf(name.toLowerCase());
    return index < 0 ? null : this.#values[index]!;
  }

  /** The fields as pairs, in the order they were first set. */
  toPairs(): HeaderPairs {
    return this.#names.map((name, i) => [name, this.#values[i]!]);
  }
}

/** Creates the headers of a response of the general path: the request id and BASE_HEADERS. */
export function createHeaders(requestId: string): ResponseHeaders {
  return new ResponseHeaders([['x-request-id', requestId], ...BASE_HEADERS]);
}
