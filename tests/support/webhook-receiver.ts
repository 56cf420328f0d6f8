/**
 * A webhook receiver for tests and the latency bench: a real HTTP server that
 * records every POST (headers, raw body, arrival time) and answers what the
 * test scripts (a status, a delay, or a hang until released).
 */
import { Webhook } from "standardwebhooks";

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  at: number;
}

export type Answer = { status: number; delayMs?: number } | "hang";

export interface Receiver {
  url: string;
  received: Received[];
  /** Answers for the next requests, in order; then `fallback`. */
  script: Answer[];
  fallback: Answer;
  onReceive?: (r: Received) => void;
  /** Verifies a request's signature with `secret` (the standardwebhooks library), returning the parsed payload. */
  verify(r: Received, secret: string): any;
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  releaseHung(): void;
  stop(): Promise<void>;
}

export function startReceiver(path = "/hook"): Receiver {
  const hung = new Set<() => void>();
  const r = {} as Receiver;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const body = await req.text();
      const rec: Received = {
        id: req.headers.get("webhook-id") ?? "",
        timestamp: req.headers.get("webhook-timestamp") ?? "",
        signature: req.headers.get("webhook-signature") ?? "",
        body,
        at: Date.now(),
      };
      r.received.push(rec);
      r.onReceive?.(rec);
      const answer = r.script.shift() ?? r.fallback;
      if (answer === "hang")
        return new Promise<Response>((resolve) => hung.add(() => resolve(new Response("late", { status: 200 }))));
      if (answer.delayMs) await Bun.sleep(answer.delayMs);
      return new Response(answer.status === 204 ? null : "ok", { status: answer.status });
    },
  });
  return Object.assign(r, {
    url: `http://127.0.0.1:${server.port}${path}`,
    received: [] as Received[],
    script: [] as Answer[],
    fallback: { status: 200 } as Answer,
    verify(rec: Received, secret: string) {
      return new Webhook(secret).verify(rec.body, {
        "webhook-id": rec.id,
        "webhook-timestamp": rec.timestamp,
        "webhook-signature": rec.signature,
      });
    },
    async waitFor(n: number, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (r.received.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${r.received.length} of ${n} requests`);
        await Bun.sleep(10);
      }
      return r.received;
    },
    releaseHung() {
      for (const f of hung) f();
      hung.clear();
    },
    async stop() {
      r.releaseHung();
      await server.stop(true);
    },
  });
}
