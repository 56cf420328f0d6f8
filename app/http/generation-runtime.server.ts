/**
 * The generation module's long-lived parts (composition root, beside services.server.ts), built once per process from the
 * shared services: the provider registry, the result storage and the input files' store.
 */

import { createRegistry, type ProviderRegistry } from "~/domain/generations/registry.server";
import { getServices } from "~/http/services.server";
import { createFileStore, type FileStore } from "~/storage/files.server";
import { createStorage } from "~/storage/index.server";
import type { ResultStorage } from "~/storage/types";

export interface GenerationRuntime {
  providers: ProviderRegistry;
  storage: ResultStorage;
  /** Input files (uploads and image inputs fetched from URLs), beside the results. */
  files: FileStore;
}

const KEY = Symbol.for("atelier.generationRuntime");
type G = typeof globalThis & { [KEY]?: GenerationRuntime };

export function getGenerationRuntime(): GenerationRuntime {
  const g = globalThis as G;
  if (!g[KEY]) {
    const { config, clock } = getServices();
    g[KEY] = {
      providers: createRegistry(config, clock),
      storage: createStorage(config),
      files: createFileStore(config),
    };
  }
  return g[KEY]!;
}
