/**
 * Input pictures at URLs, as Atelier hands them to providers (a signed link on PUBLIC_URL): a local server that
 * serves a PNG under `/in/<name>.png` and counts each fetch, and the `InputImage` a request carries for it.
 */
import type { InputImage } from "~/providers/types";
import { SAMPLE_PNG } from "./common";

export interface InputImageServer {
  origin: string;
  /** Paths fetched, in order. */
  hits: string[];
  url(name: string): string;
  image(name: string, bytes?: Uint8Array): InputImage;
  stop(): Promise<void>;
}

export function startInputImageServer(): InputImageServer {
  const hits: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.push(path);
      if (!/^\/in\/[\w-]+\.png$/.test(path)) return new Response("not found", { status: 404 });
      return new Response(SAMPLE_PNG, { headers: { "content-type": "image/png" } });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  const url = (name: string) => `${origin}/in/${name}.png?expires=4102444800&sig=test`;
  return {
    origin,
    hits,
    url,
    image: (name, bytes = SAMPLE_PNG) => ({
      url: url(name),
      contentType: "image/png",
      width: 16,
      height: 16,
      bytes: async () => bytes,
    }),
    stop: () => server.stop(true),
  };
}
