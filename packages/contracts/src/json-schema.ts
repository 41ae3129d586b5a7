import { z } from 'zod';

/**
 * A message contract as the JSON Schema (draft 2020-12) the docs publish, for systems not written
 * in TypeScript: zod's own rendering, with the `$id` and `title` readers cite it by.
 */
export function publishedJsonSchema(
  schema: z.ZodType,
  id: string,
  title: string,
): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return { $schema, $id: id, title, ...rest };
}
