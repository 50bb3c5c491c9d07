/** 2.2 does not show the item shape of tags: a string item is a tag, an object item names its tag in a string member. */
export function tagNames(tags: unknown): string[] {
  if (!Array.isArray(tags)) return [];
  return tags.flatMap((item: unknown) => {
    if (typeof item === 'string') return [item];
    if (typeof item === 'object' && item !== null)
      return Object.values(item).filter((v): v is string => typeof v === 'string');
    return [];
  });
}
