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

/** Characters as people count them (code points). */
const chars = (s: string) => [...s].length;

/** The first problem with the given fields (absent fields are not checked), or null. */
export function profileProblem(fields: { name?: unknown; image?: unknown }): ProfileProblem | null {
  const { name, image } = fields;
  if (name !== undefined) {
    if (typeof name !== "string") return { code: "INVALID_NAME", message: "name must be a string" };
    if (chars(name) > NAME_MAX_CHARS)
      return { code: "INVALID_NAME", message: `name too long (max ${NAME_MAX_CHARS} characters)` };
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
