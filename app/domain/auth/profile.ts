/**
 * Profile fields people can write through better-auth's own API (sign-up,
 * update-user): checked in its user create/update hooks, whatever the route.
 */
export const NAME_MAX_CHARS = 100;
export const IMAGE_MAX_CHARS = 2048;

export interface ProfileProblem {
  code: "INVALID_NAME" | "INVALID_IMAGE";
  message: string;
}

/**
 * What a name may not contain: control characters (line breaks, tabs, escapes), the Unicode line and paragraph
 * separators, and the bidirectional overrides that make text read differently than it is stored. A name is shown to
 * other people (an invite page) and must stay one plain line.
 */
const UNSAFE_IN_NAME = /[\p{Cc}\u2028\u2029\u202A-\u202E\u2066-\u2069]/u;
const UNSAFE_IN_NAME_ALL = new RegExp(UNSAFE_IN_NAME.source, "gu");

/** A stored name as one plain line (rows written before names were checked). */
export const plainName = (name: string) => name.replace(UNSAFE_IN_NAME_ALL, " ").trim();

/** Characters as people count them (code points). */
const chars = (s: string) => [...s].length;

/** The first problem with the given fields (absent fields are not checked), or null. */
export function profileProblem(fields: { name?: unknown; image?: unknown }): ProfileProblem | null {
  const { name, image } = fields;
  if (name !== undefined) {
    if (typeof name !== "string") return { code: "INVALID_NAME", message: "name must be a string" };
    if (chars(name) > NAME_MAX_CHARS)
      return { code: "INVALID_NAME", message: `name too long (max ${NAME_MAX_CHARS} characters)` };
    if (UNSAFE_IN_NAME.test(name))
      return { code: "INVALID_NAME", message: "name must be one line without control characters" };
  }
  if (image !== undefined && image !== null && image !== "") {
    if (typeof image !== "string") return { code: "INVALID_IMAGE", message: "image must be an https URL" };
    if (image.length > IMAGE_MAX_CHARS)
      return { code: "INVALID_IMAGE", message: `image URL too long (max ${IMAGE_MAX_CHARS} characters)` };
    let url: URL | null = null;
    try {
      url = new URL(image);
    } catch {}
    if (url?.protocol !== "https:" || !url.hostname)
      return { code: "INVALID_IMAGE", message: "image must be an https URL" };
  }
  return null;
}
