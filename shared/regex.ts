/** Patterns built from user text for store queries ($regex reads the same on NeDB and MongoDB). */

/** The text as a RegExp source that matches it literally. */
export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Any of these names, whole and case-insensitive (people named in feeds: following.service). */
export function namesPattern(names: string[]): RegExp {
  return new RegExp(`^(${names.map(escapeRegex).join("|")})$`, "i");
}
