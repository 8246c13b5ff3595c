import type { z } from 'zod';
import { InputError } from './input-error.ts';

/**
 * Validates parsed JSON with a zod schema; a failure is an InputError naming the file and the
 * JSON path of the first issue, after `prefix` (what the file was expected to be), if given.
 */
export function validateJson<T>(schema: z.ZodType<T>, json: unknown, file: string, prefix = ''): T {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = (issue?.path ?? [])
    .map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))
    .join('');
  throw new InputError(file, null, `${prefix}at JSON path $${path}: ${issue?.message ?? 'invalid'}`);
}
