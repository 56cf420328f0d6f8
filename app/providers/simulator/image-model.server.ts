/**
 * A simulated image model: a real provider of the `ai` SDK's image model
 * interface (ImageModelV4), so `generateImage` runs the same code path as with
 * OpenAI. The pixels come from the simulator's renderer (passed in, so this
 * file holds no drawing code of its own).
 */
import type { ImageModelV4, ImageModelV4CallOptions, ImageModelV4Result } from "@ai-sdk/provider";
import { SIMULATE_FAIL, SimulatedUpstreamError } from "./language-model.server";

export type RenderPng = (prompt: string) => Uint8Array | Promise<Uint8Array>;

export class SimulatedImageModel implements ImageModelV4 {
  readonly specificationVersion = "v4";
  readonly provider: string;
  readonly maxImagesPerCall = 4;

  constructor(
    readonly providerName: string,
    readonly modelId: string,
    private readonly render: RenderPng,
  ) {
    this.provider = `${providerName}.simulated`;
  }

  async doGenerate(options: ImageModelV4CallOptions): Promise<ImageModelV4Result> {
    const prompt = options.prompt ?? "";
    if (prompt.includes(SIMULATE_FAIL)) throw new SimulatedUpstreamError();
    const images: Uint8Array[] = [];
    for (let i = 0; i < options.n; i++) images.push(await this.render(prompt));
    return { images, warnings: [], response: { timestamp: new Date(), modelId: this.modelId, headers: undefined } };
  }
}
