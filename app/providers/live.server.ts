/**
 * Factories for the real upstream adapters, keyed by provider. A provider whose
 * credentials are configured and that has a factory here runs live; otherwise
 * the simulator stands in (docs/design.md §2). Adapters live next to this file.
 */

import type { Config } from "~/lib/config.server";
import { createFalProvider } from "./fal.server";
import { createGoogleProvider } from "./google.server";
import { createKlingProvider } from "./kling.server";
import type { ProviderName } from "./offering";
import { createOpenAIProvider } from "./openai.server";
import { createReplicateProvider } from "./replicate.server";
import { createRunwayProvider } from "./runway.server";
import type { Provider } from "./types";

/** An adapter, or one per lifecycle for a provider whose models differ (Google). */
export type LiveFactory = (config: Config) => Provider | Provider[];

export const LIVE_FACTORIES: Partial<Record<ProviderName, LiveFactory>> = {
  openai: (config) => createOpenAIProvider(config),
  replicate: (config) => createReplicateProvider(config),
  kling: (config) => createKlingProvider(config),
  runway: (config) => createRunwayProvider(config),
  fal: (config) => createFalProvider(config),
  google: (config) => createGoogleProvider(config),
};

/** Whether a provider's credentials are configured (the registry runs it live then). */
export function hasCredentials(config: Config, provider: ProviderName): boolean {
  switch (provider) {
    case "openai":
      return Boolean(config.OPENAI_API_KEY);
    case "replicate":
      return Boolean(config.REPLICATE_API_TOKEN);
    case "kling":
      return Boolean(config.KLING_ACCESS_KEY && config.KLING_SECRET_KEY);
    case "runway":
      return Boolean(config.RUNWAY_API_KEY);
    case "fal":
      return Boolean(config.FAL_KEY);
    case "google":
      return Boolean(config.GEMINI_API_KEY);
  }
}
