/** The media type of a Content-Type value, lower-cased and without parameters (RFC 9110 §8.3.1); undefined when absent. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type ? type : undefined;
}

/** The one rule for "labelled as JSON": application/json, or a structured-syntax +json type (RFC 6839). */
export function isJsonMediaType(type: string | undefined): boolean {
  return (
    type === 'application/json' || (type !== undefined && /^[a-z0-9!#$&^_.-]+\/[a-z0-9!#$&^_.-]+\+json$/.test(type))
  );
}
