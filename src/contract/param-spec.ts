/**
 * The shape of one query parameter's declaration, apart from the parameter tables (params.ts and
 * the family files beside it) so that each table can import it without importing the others.
 */
import type { z } from 'zod';

/** How one parameter is validated and documented. */
export interface ParamSpec {
  description: string;
  /** Validates the raw text and converts it. */
  schema: z.ZodType;
  /** The expected format in words, for the 400 message and the OpenAPI description. */
  expected: string;
  /** JSON Schema fragment for the OpenAPI description. */
  openapi: Record<string, unknown>;
  /** Only accepted with a key (history parameters of keyed endpoints). */
  keyedOnly?: boolean;
  required?: boolean;
  /** The reference list a well-formed value must also exist in (checked by the payload). */
  reference?: 'countries' | 'regions' | 'currencies';
}
