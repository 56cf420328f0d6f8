/**
 * Which implementation serves each provider: the live adapter from
 * LIVE_FACTORIES when the provider's credentials are configured (and an
 * adapter exists), otherwise the simulator. Built once from configuration.
 *
 * A provider whose models differ in lifecycle (Google: Gemini and Imagen answer
 * in one call, Veo is submit + poll) has a facet per lifecycle; `get` with the
 * task picks the facet its model's catalog entry names.
 */
import { allOfferings, findOffering, PROVIDERS, type ProviderName } from "~/domain/catalog";
import { providerModes } from "~/domain/health.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { LIVE_FACTORIES, type LiveFactory } from "~/providers/live.server";
import { createSimulator } from "~/providers/simulator/simulator.server";
import type { AsyncProvider, Provider, SyncProvider } from "~/providers/types";

export interface ProviderRegistry {
  /** The provider; with a task, the facet that runs its model (sync or submit + poll). */
  get(name: ProviderName, task?: { aiType: string; model: string }): Provider;
  mode(name: ProviderName): "live" | "simulated";
  /** The model id sent upstream: MODEL_MAP's `provider:model` entry, else the catalog's upstream id, else the public id. */
  upstreamModel(provider: ProviderName, model: string): string;
}

/** A provider's implementations by lifecycle; `main` answers when no task is given. */
interface Facets {
  main: Provider;
  sync?: SyncProvider;
  async?: AsyncProvider;
}

function facetsOf(built: Provider | Provider[]): Facets {
  const list = Array.isArray(built) ? built : [built];
  const sync = list.find((p): p is SyncProvider => p.lifecycle === "sync");
  const async = list.find((p): p is AsyncProvider => p.lifecycle === "async");
  return { main: (async ?? sync)!, sync, async };
}

export function createRegistry(
  config: Config,
  clock: Clock,
  factories: Partial<Record<ProviderName, LiveFactory>> = LIVE_FACTORIES,
): ProviderRegistry {
  const configured = providerModes(config);
  const providers = new Map<ProviderName, Facets>();
  const sim = { delayMs: config.SIMULATOR_DELAY_MS, clock };
  for (const name of PROVIDERS) {
    const factory = factories[name];
    if (configured[name] === "live" && factory) {
      providers.set(name, facetsOf(factory(config)));
    } else {
      // The simulator keeps each model's lifecycle, so a simulated task walks the states the live one would.
      providers.set(name, facetsOf([createSimulator(name, "sync", sim), createSimulator(name, "async", sim)]));
    }
  }
  const lifecycleOf = (name: ProviderName) => allOfferings().find((o) => o.provider === name)?.lifecycle ?? "async";
  return {
    get: (name, task) => {
      const p = providers.get(name);
      if (!p) throw new Error(`no provider ${name}`);
      const lifecycle = task ? findOffering(task.aiType, name, task.model)?.lifecycle : lifecycleOf(name);
      return (lifecycle === "sync" ? p.sync : lifecycle === "async" ? p.async : undefined) ?? p.main;
    },
    mode: (name) => providers.get(name)?.main.mode ?? "simulated",
    upstreamModel: (provider, model) =>
      config.modelMap[`${provider}:${model}`] ??
      allOfferings().find((o) => o.provider === provider && o.model === model)?.upstreamModel ??
      model,
  };
}
