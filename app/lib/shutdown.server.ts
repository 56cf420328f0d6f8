/**
 * The process is stopping: responses held open on purpose (a `Prefer: wait` generate, an MCP call waiting for a
 * task) listen to this signal and answer at once, so the server's stop does not wait out their timers.
 */
const KEY = Symbol.for("atelier.shutdown");
const holder = globalThis as Record<symbol, AbortController | undefined>;
const controller: AbortController = holder[KEY] ?? (holder[KEY] = new AbortController());

export const shutdownSignal: AbortSignal = controller.signal;

/** Called by the server before it stops accepting requests. */
export function beginShutdown(): void {
  controller.abort();
}
