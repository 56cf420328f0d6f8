#!/usr/bin/env bun
/**
 * The OpenAI fake answering every image request with a real-size picture: a 1024² noisy PNG of about 3 MB, a new
 * one each time (like gpt-image-1's). For the page-weight test and benchmark, which run outside `bun test` (in
 * Playwright's Node, which cannot start the Bun fakes itself). Usage: bun tests/fakes/real-size-openai.ts <port>
 * Prints one JSON line `{baseUrl, apiKey}` once it listens.
 */
import { noisyPng } from "../support/images";
import { startOpenAIFake } from "./openai";

const fake = startOpenAIFake({ port: Number(process.argv[2] ?? 0) });
let seed = 1;
Object.defineProperty(fake, "picture", { get: () => noisyPng(1024, 1024, seed++), configurable: true });
console.log(JSON.stringify({ baseUrl: fake.baseUrl, apiKey: fake.apiKey }));
