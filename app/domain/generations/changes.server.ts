/**
 * In-process wake-ups: a task's final transition here wakes this process's
 * status streams and webhook dispatcher at once. They never depend on it:
 * streams also poll the row and the dispatcher also ticks, which is how they
 * notice changes made by other processes and nodes.
 */
type Listener = () => void;

const KEY = Symbol.for("atelier.changes");
type Hub = { tasks: Map<string, Set<Listener>>; outbox: Set<Listener>; queued?: Set<Listener> };
const hub: Hub =
  ((globalThis as Record<symbol, unknown>)[KEY] as Hub | undefined) ??
  ((globalThis as Record<symbol, unknown>)[KEY] = { tasks: new Map(), outbox: new Set() } satisfies Hub);

export function onGenerationChange(genId: string, fn: Listener): () => void {
  let set = hub.tasks.get(genId);
  if (!set) hub.tasks.set(genId, (set = new Set()));
  set.add(fn);
  return () => {
    set!.delete(fn);
    if (set!.size === 0) hub.tasks.delete(genId);
  };
}

export function generationChanged(genId: string): void {
  const set = hub.tasks.get(genId);
  if (set) for (const fn of [...set]) fn();
}

export function onOutbox(fn: Listener): () => void {
  hub.outbox.add(fn);
  return () => void hub.outbox.delete(fn);
}

/** Deliveries were queued (call after the transaction committed). */
export function outboxChanged(): void {
  for (const fn of [...hub.outbox]) fn();
}

/** New tasks wait to be claimed: this process's job runner claims at once instead of at its next tick. */
export function onTasksQueued(fn: Listener): () => void {
  hub.queued ??= new Set();
  hub.queued.add(fn);
  return () => void hub.queued?.delete(fn);
}

/** A task was created (call after the transaction committed). */
export function tasksQueued(): void {
  if (hub.queued) for (const fn of [...hub.queued]) fn();
}
