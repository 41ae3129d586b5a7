import { isDeepStrictEqual } from 'node:util';
import type { FastifySerializerCompiler } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';

/**
 * How responses are written. Validating (tests, development): each response is encoded by its
 * route's zod schema, as fastify-type-provider-zod does, and must come out with the same content
 * it went in with; a response the schema would change (a key it strips, a value it transforms)
 * is a 500 naming the route. Not validating (production, ADR 0022): `JSON.stringify` as is. The
 * check is what makes the two the same answer: every response the tests produce proves that the
 * unvalidated one carries exactly what the schema allows (only key order may differ).
 */
export function responseSerializerCompiler(validate: boolean): FastifySerializerCompiler<unknown> {
  if (!validate) return () => (data) => JSON.stringify(data);
  return (route) => {
    const encode = serializerCompiler(route as Parameters<typeof serializerCompiler>[0]);
    return (data) => {
      const text = encode(data);
      // JSON.stringify answers undefined for undefined, whatever its declared type says.
      const plain = JSON.stringify(data) as string | undefined;
      if (!isDeepStrictEqual(JSON.parse(text), plain === undefined ? null : JSON.parse(plain))) {
        throw new Error(
          `${route.method} ${route.url}: the response schema changes this response, so it would differ where responses are not validated`,
        );
      }
      return text;
    };
  };
}
