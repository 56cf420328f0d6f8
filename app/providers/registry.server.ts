/**
 * Which implementation serves each provider: the live adapter from
 * LIVE_FACTORIES when the provider's credentials are configured (and an
 * adapter exists), otherwise the simulator. Built once from configuration.
 */
import { CATALOG, PROVIDERS, type ProviderName } from "~/domain/catalog";
import { providerModes } from "~/domain/health.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { LIVE_FACTORIES, type LiveFactory } from "./live.server";
import { createSimulator } from "./simulator/simulator.server";
import type { Provider } from "./types";

export interface ProviderRegistry {
  get(name: ProviderName): Provider;
  mode(name: ProviderName): "live" | "simulated";
  /** The model id sent upstream: MODEL_MAP's `provider:model` entry, else the public id. */
  upstreamModel(provider: ProviderName, model: string): string;
}

export function createRegistry(
  config: Config,
  clock: Clock,
  factories: Partial<Record<ProviderName, LiveFactory>> = LIVE_FACTORIES,
): ProviderRegistry {
  const configured = providerModes(config);
  const providers = new Map<ProviderName, Provider>();
  for (const name of PROVIDERS) {
    const factory = factories[name];
    if (configured[name] === "live" && factory) {
      providers.set(name, factory(config));
    } else {
      const lifecycle = CATALOG.find((o) => o.provider === name)?.lifecycle ?? "async";
      providers.set(name, createSimulator(name, lifecycle, { delayMs: config.SIMULATOR_DELAY_MS, clock }));
    }
  }
  return {
    get: (name) => {
      const p = providers.get(name);
      if (!p) throw new Error(`no provider ${name}`);
      return p;
    },
    mode: (name) => providers.get(name)?.mode ?? "simulated",
    upstreamModel: (provider, model) => config.modelMap[`${provider}:${model}`] ?? model,
  };
}
