/** The admin page's lists of recent generations and failures. */
import { isVideoFile } from "~/components/media";
import { Badge, Card, EmptyState, formatDate } from "~/components/ui";

/** A task in the admin's lists (routes/admin.tsx's loader). */
export interface GenerationListRow {
  id: string;
  email: string;
  aiType: string;
  provider: string;
  model: string;
  prompt: string;
  status: string;
  mode: string;
  error: string | null;
  thumb: string | null;
  createdAt: string;
}

export function GenerationList({
  title,
  id,
  rows,
  empty,
  showError,
}: {
  title: string;
  id: string;
  rows: GenerationListRow[];
  empty: string;
  showError?: boolean;
}) {
  return (
    <Card title={title} id={id}>
      {rows.length === 0 ? (
        <EmptyState title={empty} />
      ) : (
        <ul className="divide-y divide-border" aria-label={title}>
          {rows.map((g) => (
            <li key={g.id} className="flex gap-3 py-3 text-sm">
              <div className="size-14 shrink-0 overflow-hidden rounded-xl bg-muted">
                {g.thumb && !isVideoFile(g.thumb) ? (
                  <img
                    src={g.thumb}
                    alt=""
                    width={56}
                    height={56}
                    loading="lazy"
                    decoding="async"
                    className="size-full object-cover"
                  />
                ) : g.thumb ? (
                  // biome-ignore lint/a11y/noAriaHiddenOnFocusable: a muted thumbnail without controls; the row's link names the task
                  <video src={g.thumb} muted preload="metadata" aria-hidden="true" className="size-full object-cover" />
                ) : null}
              </div>
              <div className="min-w-0 flex-1">
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <Badge status={g.status} />
                  <time className="text-xs text-muted-foreground" dateTime={g.createdAt}>
                    {formatDate(g.createdAt, { seconds: true })}
                  </time>
                </div>
                <p className="mt-1 line-clamp-2 break-words">{g.prompt}</p>
                <p className="text-xs text-muted-foreground">
                  {g.email} · {g.aiType} · {g.provider} / {g.model}
                  {g.mode === "simulated" ? " · simulated" : ""}
                </p>
                {showError && g.error ? <p className="mt-1 text-xs text-danger-soft-foreground">{g.error}</p> : null}
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
