/**
 * Factories for the real upstream adapters, keyed by provider. A provider whose
 * credentials are configured and that has a factory here runs live; otherwise
 * the simulator stands in (DESIGN §2). Adapters live next to this file.
 */
import type { ProviderName } from "~/domain/catalog";
import type { Config } from "~/lib/config.server";
import type { Provider } from "./types";

export type LiveFactory = (config: Config) => Provider;

export const LIVE_FACTORIES: Partial<Record<ProviderName, LiveFactory>> = {};
