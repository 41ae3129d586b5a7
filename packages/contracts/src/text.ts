import { z } from 'zod';

// C0 and C1 control characters except tab, line feed and carriage return; U+0000 among them.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a text cannot be kept in an event, or null when it can: PostgreSQL's text and jsonb hold
 * no U+0000 and no lone UTF-16 surrogate (half of a pair), and other control characters only
 * hide or forge content in logs and consoles.
 */
export function unstorableTextReason(text: string): string | null {
  const control = CONTROL.exec(text);
  if (control !== null) {
    const codePoint = control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `must not contain control characters (U+${codePoint} at index ${control.index})`;
  }
  const surrogate = LONE_SURROGATE.exec(text);
  if (surrogate !== null)
    return `must be well-formed Unicode text (a lone UTF-16 surrogate at index ${surrogate.index})`;
  return null;
}

/**
 * Text a client sends that may reach an event (a reason, a reference, a dealer's id, a name):
 * trimmed, between `min` and `max` characters, storable (see `unstorableTextReason`). Every
 * request body, path and query text field uses it, so bad text is a 400 naming the field,
 * never a store error.
 */
export function textSchema(options: { readonly max: number; readonly min?: number }) {
  return z
    .string()
    .trim()
    .min(options.min ?? 1)
    .max(options.max)
    .superRefine((text, context) => {
      const reason = unstorableTextReason(text);
      if (reason !== null) context.addIssue({ code: 'custom', message: reason });
    });
}
