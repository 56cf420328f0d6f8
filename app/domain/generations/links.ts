/**
 * Task links (docs/events.md "Task links"): every view of a task — the query answer, history entries, webhook
 * payloads — carries `urls` a client can follow: `get` and `cancel` (POST, the gen_id in the URL suffices), the
 * SSE `stream`, and the studio page `web`. Built from PUBLIC_URL, set once when the process opens its services.
 */
export interface TaskLinks {
  get: string;
  cancel: string;
  stream: string;
  web: string;
}

const KEY = Symbol.for("atelier.linkBase");
const holder = globalThis as Record<symbol, string | undefined>;

/** The origin links start with (PUBLIC_URL without a trailing slash). */
export function setLinkBase(publicUrl: string): void {
  holder[KEY] = publicUrl.replace(/\/+$/, "");
}

/** The origin links start with ("" before setLinkBase: relative links). */
export const linkBase = () => holder[KEY] ?? "";

export function taskLinks(genId: string): TaskLinks {
  const base = holder[KEY] ?? "";
  const id = encodeURIComponent(genId);
  return {
    get: `${base}/api/generator/query?gen_id=${id}`,
    cancel: `${base}/api/generator/cancel?gen_id=${id}`,
    stream: `${base}/api/generator/stream?gen_id=${id}`,
    web: `${base}/studio/${id}`,
  };
}
