/**
 * The MCP server at /mcp (docs/mcp.md) driven by the official client SDK: the tools, a generate that waits for its
 * result, the key's credits, scopes and cap obeyed as over HTTP, tool errors carrying the envelope's message, and
 * HTTP 401 for no key or a revoked one before any MCP exchange.
 */
import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";
import { png } from "../../support/images";

const KLING = { ai_type: "image", provider: "kling", model: "kling-v1" }; // 4 credits

const it = serverForFile({ env: { SIGNUP_CREDITS: "20", SIMULATOR_DELAY_MS: "100" } });

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "atelier-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${it.server.url}/mcp`), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const json = (r: CallToolResult) => JSON.parse((r.content[0] as { text: string }).text);
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

async function userWithKey(body: Record<string, unknown> = {}) {
  const { cookie } = await it.api.signUp(uniqueEmail("mcp"));
  const key = (await it.api.post("/api/keys/create", { name: "mcp", ...body }, { cookie })).body.data;
  return { cookie, key: key.key as string, keyId: key.key_id as string };
}

describe("MCP server", () => {
  test("lists its tools; list_models, generate with wait_seconds, get_generation, list_generations, get_credits", async () => {
    const { key } = await userWithKey();
    const client = await connect({ Authorization: `Bearer ${key}` });
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual([
      "generate",
      "get_credits",
      "get_generation",
      "list_generations",
      "list_models",
      "upload_image",
    ]);

    const models = json(await call(client, "list_models", { ai_type: "image" })).models;
    const kling = models.find((m: any) => m.provider === "kling" && m.model === "kling-v1");
    expect(kling).toMatchObject({ ai_type: "image", credits: 4 });
    expect(kling.options.properties.aspect_ratio).toBeDefined();
    expect(models.every((m: any) => m.ai_type === "image")).toBe(true);

    const done = await call(client, "generate", { ...KLING, prompt: "a fox", wait_seconds: 20 });
    expect(done.isError).toBeFalsy();
    const task = json(done);
    expect(task.status).toBe("completed");
    expect(task.result_urls).toHaveLength(1);
    expect(task.urls.get).toContain(`gen_id=${task.gen_id}`);
    const link = done.content[1] as { type: string; uri: string; mimeType?: string };
    expect(link).toMatchObject({ type: "resource_link", uri: task.result_urls[0] });
    const file = await fetch(link.uri);
    expect(file.status).toBe(200);
    const image = done.content[2] as { type: string; data: string; mimeType: string };
    expect(image).toMatchObject({ type: "image", mimeType: link.mimeType });
    expect(Buffer.from(image.data, "base64").equals(Buffer.from(await file.arrayBuffer()))).toBe(true);

    const got = json(await call(client, "get_generation", { gen_id: task.gen_id }));
    expect(got).toMatchObject({ gen_id: task.gen_id, status: "completed", result_urls: task.result_urls });
    const history = json(await call(client, "list_generations", { page_size: 5 }));
    expect(history.generations.map((g: any) => g.gen_id)).toEqual([task.gen_id]);
    expect(json(await call(client, "get_credits"))).toEqual({ left_credits: 16, total_credits: 20 });

    // Without wait_seconds the task comes back at once, as the API's generate answers.
    const quick = json(await call(client, "generate", { ...KLING, prompt: "a hare" }));
    expect(["pending", "processing"]).toContain(quick.status);
    await client.close();
  });

  test("refusals are tool errors with the envelope's message, and X-API-Key works too", async () => {
    const { key, cookie } = await userWithKey();
    const client = await connect({ "X-API-Key": key });
    const unknown = await call(client, "generate", { ...KLING, model: "nope", prompt: "x" });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toBe("Unsupported model: nope");
    const missing = await call(client, "get_generation", { gen_id: "no-such-task" });
    expect(missing).toMatchObject({ isError: true });
    expect(text(missing)).toBe("generation not found");
    const poor = await call(client, "generate", { ...KLING, prompt: "x", options: { aspect_ratio: "5:1" } });
    expect(text(poor)).toStartWith("invalid params: options.aspect_ratio");
    // 20 credits: five 4-credit tasks pass, the sixth is refused and creates nothing.
    for (let i = 0; i < 5; i++)
      expect((await call(client, "generate", { ...KLING, prompt: `${i}` })).isError).toBeFalsy();
    const broke = await call(client, "generate", { ...KLING, prompt: "one too many" });
    expect(text(broke)).toBe("insufficient credits: need 4, have 0");
    expect((await it.api.post("/api/generator/history", {}, { cookie })).body.data.total).toBe(5);
    await client.close();
  });

  test("a read-scoped key reads but cannot generate; a capped key stops at its cap", async () => {
    const reader = await userWithKey({ scopes: ["read"] });
    const client = await connect({ Authorization: `Bearer ${reader.key}` });
    expect(json(await call(client, "get_credits")).left_credits).toBe(20);
    const refused = await call(client, "generate", { ...KLING, prompt: "x" });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toBe("forbidden: this key lacks the generate scope");
    expect((await it.api.post("/api/generator/history", {}, { cookie: reader.cookie })).body.data.total).toBe(0);
    await client.close();

    const capped = await userWithKey({ credit_limit: { credits: 5, period: "day" } });
    const spender = await connect({ Authorization: `Bearer ${capped.key}` });
    expect((await call(spender, "generate", { ...KLING, prompt: "one" })).isError).toBeFalsy();
    const over = await call(spender, "generate", { ...KLING, prompt: "two" });
    expect(text(over)).toBe("key credit limit reached: 4 of 5 this day");
    await spender.close();
  });

  test("upload_image stores a picture a generate then uses; the files scope and the bytes are checked", async () => {
    const { key } = await userWithKey();
    const client = await connect({ Authorization: `Bearer ${key}` });
    const picture = Buffer.from(png(16, 16)).toString("base64");
    const uploaded = json(await call(client, "upload_image", { data: picture }));
    const fileId: string = uploaded.file_id;
    expect(fileId).toStartWith("file_");
    expect(uploaded).toMatchObject({ content_type: "image/png", width: 16, height: 16 });
    const edited = await call(client, "generate", {
      ai_type: "image",
      provider: "openai",
      model: "gpt-image-1",
      prompt: "make it blue",
      options: { image: fileId },
      wait_seconds: 20,
    });
    expect(json(edited).status).toBe("completed");
    const notAPicture = await call(client, "upload_image", { data: Buffer.from("hello").toString("base64") });
    expect(notAPicture.isError).toBe(true);
    expect(text(notAPicture)).toBe("invalid file: not a PNG, JPEG or WebP image");
    await client.close();

    const reader = await userWithKey({ scopes: ["read", "generate"] });
    const noFiles = await connect({ Authorization: `Bearer ${reader.key}` });
    expect(text(await call(noFiles, "upload_image", { data: picture }))).toBe(
      "forbidden: this key lacks the files scope",
    );
    await noFiles.close();
  });

  test("concurrent calls of two users never see each other's account (servers are pooled across requests)", async () => {
    const a = await userWithKey();
    const b = await userWithKey();
    const [clientA, clientB] = await Promise.all([
      connect({ Authorization: `Bearer ${a.key}` }),
      connect({ Authorization: `Bearer ${b.key}` }),
    ]);
    const held = call(clientA, "generate", { ...KLING, prompt: "held", wait_seconds: 20 });
    const readsB = await Promise.all(Array.from({ length: 12 }, () => call(clientB, "get_credits")));
    const readsA = await Promise.all(Array.from({ length: 12 }, () => call(clientA, "get_credits")));
    const task = json(await held);
    expect(task.status).toBe("completed");
    expect(readsB.map((r) => json(r).left_credits)).toEqual(Array(12).fill(20));
    for (const r of readsA) expect([16, 20]).toContain(json(r).left_credits);
    expect(text(await call(clientB, "get_generation", { gen_id: task.gen_id }))).toBe("generation not found");
    expect(json(await call(clientB, "list_generations")).total).toBe(0);
    await Promise.all([clientA.close(), clientB.close()]);
  });

  test("each JSON-RPC request takes one unit of the owner's rate limit, shared with the JSON API", async () => {
    const { key } = await userWithKey();
    const headers = {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${key}`,
    };
    const credits = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_credits" } });
    // A batch of 101 calls is 101 requests: it cannot pass the default 100 a minute in one POST.
    const batch = await fetch(`${it.server.url}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify(Array.from({ length: 101 }, (_, i) => credits(i))),
    });
    expect(batch.status).toBe(429);
    expect(Number(batch.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await batch.json()).error.message).toBe("Too Many Requests");
    const api = await it.api.post("/api/get-user-credits", {}, { apiKey: key });
    expect(api.status).toBe(429);
  });

  test("no key, a wrong key and a revoked key are HTTP 401 before any MCP exchange", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(`${it.server.url}/mcp`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(initialize),
      });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await none.json()).error.message).toBe("no auth, please sign-in");
    const wrong = await post({ Authorization: "Bearer sk-not-a-key" });
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).error.message).toBe("API key not found");

    const { key, keyId, cookie } = await userWithKey();
    expect((await post({ Authorization: `Bearer ${key}` })).status).toBe(200);
    // Stateless: no stream to open with GET.
    expect((await fetch(`${it.server.url}/mcp`, { headers: { "X-API-Key": key } })).status).toBe(405);
    await it.api.post("/api/keys/revoke", { key_id: keyId }, { cookie });
    const revoked = await post({ Authorization: `Bearer ${key}` });
    expect(revoked.status).toBe(401);
    expect((await revoked.json()).error.message).toBe("API key revoked");
    await expect(connect({ Authorization: `Bearer ${key}` })).rejects.toThrow();

    // Garbage with a good key: never a 5xx (an empty batch is an accepted nothing, 202).
    const fresh = await userWithKey();
    for (const body of ["not json", "[]", "{}", '{"jsonrpc":"2.0","id":1,"method":"tools/call"}', "[".repeat(5000)]) {
      const r = await fetch(`${it.server.url}/mcp`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          Authorization: `Bearer ${fresh.key}`,
        },
        body,
      });
      expect({ body: body.slice(0, 20), ok: r.status < 500 }).toEqual({
        body: body.slice(0, 20),
        ok: true,
      });
    }
  });
});
