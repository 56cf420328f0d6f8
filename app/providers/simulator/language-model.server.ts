/**
 * A simulated language model: a real model provider of the `ai` SDK's
 * interface (LanguageModelV4), so `generateText` and `streamText` run the same
 * code path as with a live provider. The reply is deterministic (derived from
 * the prompt) and streams word by word with a small delay.
 *
 * `[simulate:fail]` in the prompt fails the call: `generateText` throws, and a
 * stream fails after its first few words (a mid-stream upstream failure).
 */

import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { sleep } from "../http.server";

export const SIMULATE_FAIL = "[simulate:fail]";
/** Words streamed before a `[simulate:fail]` stream breaks. */
export const FAIL_AFTER_WORDS = 3;

export class SimulatedUpstreamError extends Error {
  constructor(message = "simulated upstream failure") {
    super(message);
    this.name = "SimulatedUpstreamError";
  }
}

const OPENERS = [
  "Here is a thought about",
  "Let me sketch an answer about",
  "A short note on",
  "Consider this reply to",
];
const CLOSERS = [
  "Every sentence you read here was composed locally, so the demo works offline.",
  "Configure a provider key to hear from a real model instead.",
  "The same streaming path carries real model output when a key is set.",
  "Nothing left this machine to write it.",
];

/** FNV-1a, enough to pick phrases deterministically. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The simulated reply for a prompt: the same prompt always gives the same text. */
export function simulatedReply(provider: string, model: string, prompt: string): string {
  const h = hash(`${provider}\u0000${model}\u0000${prompt}`);
  const topic = prompt.replace(/\s+/g, " ").trim().slice(0, 80) || "nothing in particular";
  return [
    `${OPENERS[h % OPENERS.length]} "${topic}".`,
    `This is the simulated ${model} model of ${provider}: it answers every prompt with text derived from the prompt itself.`,
    CLOSERS[(h >>> 8) % CLOSERS.length],
  ].join(" ");
}

/** Words with their following whitespace, so the chunks concatenate back to the text. */
export function wordChunks(text: string): string[] {
  return text.match(/\S+\s*/g) ?? [];
}

/** The system instructions of a call, if any. */
function systemText(prompt: LanguageModelV4Prompt): string | undefined {
  const m = prompt.find((x) => x.role === "system");
  return m?.role === "system" ? m.content : undefined;
}

/** The text of the last user message (what the demo sends). */
export function promptText(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const m = prompt[i]!;
    if (m.role === "user") {
      return m.content.map((p) => (p.type === "text" ? p.text : "")).join("");
    }
  }
  return "";
}

function usage(input: string, output: string): LanguageModelV4Usage {
  const inTokens = wordChunks(input).length;
  const outTokens = wordChunks(output).length;
  return {
    inputTokens: { total: inTokens, noCache: inTokens, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: outTokens, text: outTokens, reasoning: 0 },
  };
}

export interface SimulatedLanguageModelOptions {
  /** Pause before each streamed word. */
  wordDelayMs: number;
  /**
   * A task the caller recognises by its system text, and how a simulated model answers it (the studio's Enhance
   * hands its rewriter instructions and its simulated rewrite): the model answers that instead of a chat reply.
   */
  rewriter?: { instructions: string; rewrite(prompt: string): string };
}

export class SimulatedLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = "v4";
  readonly provider: string;
  readonly supportedUrls = {};

  constructor(
    readonly providerName: string,
    readonly modelId: string,
    private readonly opts: SimulatedLanguageModelOptions,
  ) {
    this.provider = `${providerName}.simulated`;
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const input = promptText(options.prompt);
    if (input.includes(SIMULATE_FAIL)) throw new SimulatedUpstreamError();
    // Asked to rewrite a prompt (the studio's Enhance): a rewrite, not a chat reply.
    const text =
      this.opts.rewriter && systemText(options.prompt) === this.opts.rewriter.instructions
        ? this.opts.rewriter.rewrite(input)
        : simulatedReply(this.providerName, this.modelId, input);
    return {
      content: [{ type: "text", text }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: usage(input, text),
      warnings: [],
      response: { id: `sim-${hash(input).toString(16)}`, modelId: this.modelId, timestamp: new Date() },
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const input = promptText(options.prompt);
    const fail = input.includes(SIMULATE_FAIL);
    const text = simulatedReply(this.providerName, this.modelId, input);
    const words = wordChunks(text);
    const { wordDelayMs } = this.opts;
    const signal = options.abortSignal;
    const id = "txt-0";
    let i = 0;
    let phase: "start" | "words" | "done" = "start";
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      async pull(controller) {
        if (phase === "start") {
          controller.enqueue({ type: "stream-start", warnings: [] });
          controller.enqueue({
            type: "response-metadata",
            id: `sim-${hash(input).toString(16)}`,
            modelId: "sim",
            timestamp: new Date(),
          });
          controller.enqueue({ type: "text-start", id });
          phase = "words";
          return;
        }
        if (phase === "done") return;
        if (fail && i === FAIL_AFTER_WORDS) {
          phase = "done";
          controller.enqueue({ type: "error", error: new SimulatedUpstreamError() });
          controller.close();
          return;
        }
        if (i < words.length) {
          if (wordDelayMs > 0) await sleep(wordDelayMs, signal);
          controller.enqueue({ type: "text-delta", id, delta: words[i++]! });
          return;
        }
        phase = "done";
        controller.enqueue({ type: "text-end", id });
        controller.enqueue({
          type: "finish",
          finishReason: { unified: "stop", raw: "stop" },
          usage: usage(input, text),
        });
        controller.close();
      },
    });
    return { stream };
  }
}
