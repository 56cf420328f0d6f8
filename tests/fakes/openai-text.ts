/**
 * A fake OpenAI-compatible upstream: a real `Bun.serve` on port 0 speaking the
 * documented shapes that `@ai-sdk/openai` reads (checked against its source:
 * src/responses/openai-responses-api.ts, src/chat/openai-chat-api.ts,
 * src/image/openai-image-api.ts):
 *
 * - `POST /v1/responses` (Responses API): JSON, or SSE events `response.created`,
 *   `response.output_item.added`, `response.output_text.delta` …, `response.completed`.
 * - `POST /v1/chat/completions`: JSON, or SSE `data: {choices:[{delta:{content}}]}` … `data: [DONE]`.
 * - `POST /v1/images/generations`: `{data:[{b64_json}]}` (a real PNG).
 *
 * Every call needs `Authorization: Bearer <apiKey>` (else 401 as OpenAI answers).
 * Markers in the prompt choose failures: `[fake:500]` → HTTP 500;
 * `[fake:midstream]` → a few deltas, then an error event; `[fake:drop]` → a few
 * deltas, then the connection breaks.
 */
import { deflateSync } from "node:zlib";

export interface FakeCall {
  path: string;
  authorization: string | null;
  body: any;
}

export interface FakeOpenAI {
  url: string;
  /** Base URL to configure (`…/v1`). */
  baseURL: string;
  apiKey: string;
  calls: FakeCall[];
  stop(): Promise<void>;
}

/** The reply the fake gives for a prompt; tests compare against it. */
export function fakeReply(model: string, prompt: string): string {
  return `Fake ${model} says: ${prompt.replace(/\[fake:[a-z0-9]+\]/g, "").trim()} — and that is all.`;
}

export const chunksOf = (text: string) => text.match(/\S+\s*/g) ?? [];
/** Deltas sent before a `[fake:midstream]` or `[fake:drop]` failure. */
export const FAKE_FAIL_AFTER = 3;

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const openaiError = (status: number, message: string, type: string, code: string | null) =>
  json({ error: { message, type, param: null, code } }, status);

function promptOf(path: string, body: any): string {
  if (path.endsWith("/chat/completions")) {
    const last = [...(body.messages ?? [])].reverse().find((m: any) => m.role === "user");
    return typeof last?.content === "string"
      ? last.content
      : (last?.content ?? []).map((p: any) => p.text ?? "").join("");
  }
  if (path.endsWith("/responses")) {
    const input = body.input;
    if (typeof input === "string") return input;
    const last = [...(input ?? [])].reverse().find((m: any) => m.role === "user");
    if (typeof last?.content === "string") return last.content;
    return (last?.content ?? []).map((p: any) => p.text ?? "").join("");
  }
  return String(body.prompt ?? "");
}

/** A real PNG (solid colour), so stored demo images are valid files. */
export function tinyPng(width = 4, height = 4, rgb: [number, number, number] = [200, 80, 40]): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Uint8Array) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, data.length);
    out.set(new TextEncoder().encode(type), 4);
    out.set(data, 8);
    dv.setUint32(8 + data.length, crc(out.subarray(4, 8 + data.length)));
    return out;
  };
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, width);
  dv.setUint32(4, height);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = new Uint8Array(height * (1 + width * 3));
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw.set(rgb, y * (1 + width * 3) + 1 + x * 3);
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr),
    chunk("IDAT", new Uint8Array(deflateSync(raw))),
    chunk("IEND", new Uint8Array()),
  ];
  return new Uint8Array(Buffer.concat(parts));
}

export async function startFakeOpenAI(opts: { apiKey?: string; chunkDelayMs?: number } = {}): Promise<FakeOpenAI> {
  const apiKey = opts.apiKey ?? "sk-fake-test-key";
  const delay = opts.chunkDelayMs ?? 15;
  const calls: FakeCall[] = [];
  const enc = new TextEncoder();

  /** An SSE body: each item is written after `delay`; `breakAt` errors the connection. */
  const sse = (events: string[], breakAt?: number) =>
    new Response(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          for (let i = 0; i < events.length; i++) {
            if (breakAt !== undefined && i === breakAt) {
              controller.error(new Error("fake connection drop"));
              return;
            }
            controller.enqueue(enc.encode(events[i]!));
            await Bun.sleep(delay);
          }
          controller.close();
        },
      }),
      { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } },
    );

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const body = req.method === "POST" ? await req.json().catch(() => ({})) : {};
      const authorization = req.headers.get("authorization");
      calls.push({ path, authorization, body });
      if (authorization !== `Bearer ${apiKey}`) {
        return openaiError(
          401,
          "Incorrect API key provided: sk-***. You can find your API key at https://platform.openai.com/account/api-keys.",
          "invalid_request_error",
          "invalid_api_key",
        );
      }
      const prompt = promptOf(path, body);
      if (prompt.includes("[fake:500]"))
        return openaiError(500, "The server had an error while processing your request.", "server_error", null);
      const model = String(body.model ?? "");
      const text = fakeReply(model, prompt);
      const words = chunksOf(text);
      const failMid = prompt.includes("[fake:midstream]");
      const drop = prompt.includes("[fake:drop]");
      const created = Math.floor(Date.now() / 1000);
      const usage = { input: chunksOf(prompt).length, output: words.length };

      if (path === "/v1/responses") {
        const id = "resp_fake_1";
        const msgId = "msg_fake_1";
        const usageObj = {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + usage.output,
        };
        const message = (status: string, content: unknown[]) => ({
          id: msgId,
          type: "message",
          status,
          role: "assistant",
          content,
        });
        const base = { id, object: "response", created_at: created, model };
        if (!body.stream) {
          return json({
            ...base,
            status: "completed",
            output: [message("completed", [{ type: "output_text", text, annotations: [] }])],
            usage: usageObj,
          });
        }
        let seq = 0;
        const ev = (type: string, data: Record<string, unknown>) =>
          `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`;
        const events = [
          ev("response.created", { response: { ...base, status: "in_progress", output: [] } }),
          ev("response.in_progress", { response: { ...base, status: "in_progress", output: [] } }),
          ev("response.output_item.added", { output_index: 0, item: message("in_progress", []) }),
          ev("response.content_part.added", {
            item_id: msgId,
            output_index: 0,
            content_index: 0,
            part: { type: "output_text", text: "", annotations: [] },
          }),
        ];
        const head = events.length;
        words.forEach((delta) =>
          events.push(
            ev("response.output_text.delta", {
              item_id: msgId,
              output_index: 0,
              content_index: 0,
              delta,
              logprobs: [],
            }),
          ),
        );
        if (failMid) {
          events.splice(head + FAKE_FAIL_AFTER);
          events.push(ev("error", { code: "server_error", message: "The model stopped unexpectedly.", param: null }));
          return sse(events);
        }
        events.push(
          ev("response.output_text.done", { item_id: msgId, output_index: 0, content_index: 0, text, logprobs: [] }),
          ev("response.content_part.done", {
            item_id: msgId,
            output_index: 0,
            content_index: 0,
            part: { type: "output_text", text, annotations: [] },
          }),
          ev("response.output_item.done", {
            output_index: 0,
            item: message("completed", [{ type: "output_text", text, annotations: [] }]),
          }),
          ev("response.completed", {
            response: {
              ...base,
              status: "completed",
              output: [message("completed", [{ type: "output_text", text, annotations: [] }])],
              usage: usageObj,
            },
          }),
        );
        return sse(events, drop ? head + FAKE_FAIL_AFTER : undefined);
      }

      if (path === "/v1/chat/completions") {
        const base = { id: "chatcmpl-fake-1", created, model };
        const usageObj = {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
        };
        if (!body.stream) {
          return json({
            ...base,
            object: "chat.completion",
            choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
            usage: usageObj,
          });
        }
        const data = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
        const chunk = (delta: unknown, finish: string | null) =>
          data({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });
        const events = [chunk({ role: "assistant", content: "" }, null)];
        words.forEach((w) => events.push(chunk({ content: w }, null)));
        if (failMid) {
          events.splice(1 + FAKE_FAIL_AFTER);
          events.push(
            data({
              error: { message: "The model stopped unexpectedly.", type: "server_error", param: null, code: null },
            }),
          );
          return sse(events);
        }
        events.push(chunk({}, "stop"));
        if (body.stream_options?.include_usage)
          events.push(data({ ...base, object: "chat.completion.chunk", choices: [], usage: usageObj }));
        events.push("data: [DONE]\n\n");
        return sse(events, drop ? 1 + FAKE_FAIL_AFTER : undefined);
      }

      if (path === "/v1/images/generations") {
        if (body.response_format !== undefined && body.response_format !== "b64_json") {
          return openaiError(400, "this fake only answers b64_json", "invalid_request_error", null);
        }
        const n = Number(body.n ?? 1);
        const b64 = Buffer.from(tinyPng()).toString("base64");
        return json({ created, data: Array.from({ length: n }, () => ({ b64_json: b64, revised_prompt: prompt })) });
      }

      return openaiError(404, `Unknown path ${path}`, "invalid_request_error", null);
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return { url, baseURL: `${url}/v1`, apiKey, calls, stop: () => server.stop(true) };
}
