import { PARAMS, type ParamName } from '../../src/contract/params.ts';

/**
 * A static request's query (or one of its aliases, such as a code in lower case) read as the
 * request parser reads it, for tests that call a payload function directly.
 */
export function parsedQuery(spelling: Partial<Record<ParamName, string>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(spelling).map(([name, value]) => [name, PARAMS[name as ParamName].schema.parse(value)]),
  );
}
