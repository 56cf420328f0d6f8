/**
 * What every provider fake shares: a request log, scripted faults ("fail the
 * next N create calls with a 429"), hanging responses that end when the fake
 * stops, and real result files (a PNG and an MP4) served from the fake's URL.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "bun";

export const SAMPLE_PNG = new Uint8Array(readFileSync(join(import.meta.dir, "assets/sample.png")));
export const SAMPLE_MP4 = new Uint8Array(readFileSync(join(import.meta.dir, "assets/sample.mp4")));

/** Ways a fake can be told to fail. Not every provider offers every one. */
export type Fault =
  | "auth" // 401 in the provider's own words
  | "rate_limit" // 429
  | "server" // 500
  | "malformed" // 200 with a body that is not JSON
  | "hang"; // never answers (until the fake stops)

/** Which call a fault applies to. */
export type Route = "create" | "poll" | "file" | "any";

export interface LoggedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

/** An input picture a fake fetched from the URL it was given, as the provider would. */
export interface FetchedInput {
  field: string;
  url: string;
  contentType: string;
  bytes: number;
  /** SHA-256 of what it received (hex): the very bytes Atelier stored, or not. */
  sha256: string;
}

export class FakeState<F extends string = Fault> {
  readonly requests: LoggedRequest[] = [];
  readonly fetched: FetchedInput[] = [];
  private faults: { route: Route; fault: F; times: number }[] = [];
  private hanging = new Set<() => void>();

  /** The next `times` calls on `route` answer with `fault`. */
  fail(route: Route, fault: F, times = 1): void {
    this.faults.push({ route, fault, times });
  }

  take(route: Route): F | undefined {
    const i = this.faults.findIndex((f) => f.route === route || f.route === "any");
    if (i === -1) return undefined;
    const f = this.faults[i]!;
    if (--f.times <= 0) this.faults.splice(i, 1);
    return f.fault;
  }

  async log(req: Request): Promise<LoggedRequest> {
    const url = new URL(req.url);
    const text = req.method === "GET" || req.method === "HEAD" ? "" : await req.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {}
    const entry = {
      method: req.method,
      path: url.pathname + url.search,
      headers: Object.fromEntries(req.headers),
      body,
    };
    this.requests.push(entry);
    return entry;
  }

  /** A response that never comes (released with an empty 504 when the fake stops). */
  hang(): Promise<Response> {
    return new Promise((resolve) => {
      const release = () => resolve(new Response("", { status: 504 }));
      this.hanging.add(release);
    });
  }

  releaseAll(): void {
    for (const r of this.hanging) r();
    this.hanging.clear();
  }

  reset(): void {
    this.requests.length = 0;
    this.fetched.length = 0;
    this.faults = [];
  }
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

export const malformed = () =>
  new Response('{"id": "oops", "status": ', { status: 200, headers: { "content-type": "application/json" } });

/** Serves `/files/<name>.png|.mp4` with real bytes; null when the path is something else. */
export function serveFile(path: string): Response | null {
  const m = /^\/files\/[\w-]+\.(png|mp4)$/.exec(path);
  if (!m) return null;
  const bytes = m[1] === "png" ? SAMPLE_PNG : SAMPLE_MP4;
  return new Response(bytes, {
    headers: { "content-type": m[1] === "png" ? "image/png" : "video/mp4", "content-length": String(bytes.byteLength) },
  });
}

export interface RunningFake<F extends string = Fault> {
  /** Origin of the fake, e.g. http://127.0.0.1:41234 */
  origin: string;
  /** The value for the provider's *_BASE_URL. */
  baseUrl: string;
  state: FakeState<F>;
  server: Server<undefined>;
  stop(): Promise<void>;
}

export function startFake<F extends string = Fault>(
  port: number,
  baseSuffix: string,
  handler: (req: Request, url: URL, origin: string) => Promise<Response> | Response,
  state: FakeState<F> = new FakeState<F>(),
): RunningFake<F> {
  let origin = "";
  const server = Bun.serve({
    port,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    fetch: (req) => handler(req, new URL(req.url), origin),
  });
  origin = `http://127.0.0.1:${server.port}`;
  return {
    origin,
    baseUrl: origin + baseSuffix,
    state,
    server,
    async stop() {
      state.releaseAll();
      await server.stop(true);
    },
  };
}

let seq = 0;
export const fakeId = (prefix = "") =>
  `${prefix}${Date.now().toString(36)}${(seq++).toString(36).padStart(4, "0")}${Math.random().toString(36).slice(2, 8)}`;

export const sha256hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The picture type of `bytes` by its signature (PNG, JPEG, WebP), as providers check an input; null otherwise. */
export function pictureType(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.subarray(0, 12));
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return "image/jpeg";
  if (head.toString("latin1", 0, 4) === "RIFF" && head.toString("latin1", 8, 12) === "WEBP") return "image/webp";
  return null;
}

/**
 * Fetches an input picture's URL the way a provider does (it must answer 200 with a PNG, JPEG or WebP) and
 * records it in `state.fetched`. Answers the reason it cannot be used, or null.
 */
export async function fetchInput(state: FakeState<string>, field: string, value: unknown): Promise<string | null> {
  if (typeof value !== "string" || !/^https?:\/\//.test(value)) return `${field} must be a URL`;
  let res: Response;
  try {
    res = await fetch(value, { redirect: "follow" });
  } catch {
    return `${field} could not be downloaded`;
  }
  if (!res.ok) return `${field} could not be downloaded (HTTP ${res.status})`;
  const bytes = new Uint8Array(await res.arrayBuffer());
  const contentType = pictureType(bytes);
  if (!contentType) return `${field} is not a supported image`;
  state.fetched.push({ field, url: value, contentType, bytes: bytes.byteLength, sha256: sha256hex(bytes) });
  return null;
}
