/**
 * The results, which are the page: a justified grid (each row the same height, each result at its own aspect
 * ratio, newest first from the top left), filters beside the heading, a pager that lands back on the results.
 * The lightbox carries the same actions as the tiles.
 */
import { Sparkles } from "lucide-react";
import { useMemo } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { type MediaItem, useLightbox } from "~/components/media";
import { cn, EmptyState, Pagination } from "~/components/ui";
import { Filters, filterHref } from "./filters";
import { OfferingsContext, ResultActions } from "./result-actions";
import { ResultTile } from "./result-tile";
import { TileIconSprite } from "./tile-icons";
import type { Data, Draft, Task } from "./types";

/** N columns, each about as wide as a square tile of the gallery's row height (a wide screen keeps them tile-sized). */
const COMPARE_COLUMNS: Record<number, string> = {
  2: "grid-cols-2 max-w-[calc(var(--row)*3.2)]",
  3: "grid-cols-3 max-w-[calc(var(--row)*4.8)]",
  4: "grid-cols-4 max-w-[calc(var(--row)*6.4)]",
};

/**
 * The page's tasks as the grid shows them: one by one, except the tasks of one comparison, which stay together
 * (oldest first: the order the models were chosen) wherever the newest-first list put them.
 */
function groupCompared(tasks: readonly Task[]): Task[][] {
  const out: Task[][] = [];
  const groups = new Map<string, Task[]>();
  for (const t of tasks) {
    if (!t.compareId) {
      out.push([t]);
      continue;
    }
    const group = groups.get(t.compareId);
    if (group) group.unshift(t);
    else {
      const fresh = [t];
      groups.set(t.compareId, fresh);
      out.push(fresh);
    }
  }
  return out;
}

export function Gallery({
  data,
  highlight,
  onReuse,
}: {
  data: Data;
  highlight: string | null;
  onReuse: (d: Draft) => void;
}) {
  const { tasks, page, pages, total, filter } = data;
  const { t } = useTranslation("studio");
  const filtered = Boolean(filter.type || filter.status);
  const running = tasks.some((t) => t.status === "pending" || t.status === "processing");
  const viewable = useMemo<MediaItem[]>(
    () =>
      tasks
        .filter((t) => t.status === "completed" && t.urls[0])
        .map((t) => ({ id: t.id, url: t.urls[0]!, aiType: t.aiType, prompt: t.prompt })),
    [tasks],
  );
  const lightbox = useLightbox(viewable, (m, close) => {
    const task = tasks.find((t) => t.id === m.id);
    return task ? (
      <span className="flex items-center gap-2">
        <ResultActions
          task={task}
          className="rounded-xl bg-surface-raised p-1 text-foreground shadow-lg"
          onReuse={(d) => {
            close();
            onReuse(d);
          }}
          onHide={close}
          onClose={close}
        />
        {/* The report form lives on the task page (a plain form post, docs/safety.md "Reports and takedowns"). */}
        <Link
          to={`/studio/${task.id}#report`}
          onClick={close}
          className="rounded-xl bg-surface-raised px-3 py-2 text-sm text-foreground shadow-lg"
        >
          Report
        </Link>
      </span>
    ) : null;
  });

  return (
    <OfferingsContext.Provider value={data.offerings}>
      <section aria-labelledby="history-h" id="gallery" className="scroll-mt-20">
        {tasks.length > 0 ? <TileIconSprite /> : null}
        <div className="mb-3 flex flex-wrap items-center justify-between gap-x-3 gap-y-2">
          <h2 id="history-h" className="text-base font-semibold tracking-tight" tabIndex={-1}>
            {t("gallery.heading")} <span className="text-sm font-normal text-muted-foreground">({total})</span>
          </h2>
          <Filters filter={filter} />
        </div>
        {/* Always there, so screen readers announce the line when it appears (a live region added with its text is often not read). */}
        <div role="status" className="sr-only">
          {running ? <p data-testid="running">{t("gallery.working")}</p> : null}
        </div>
        {running ? (
          <noscript>
            <p className="mb-3 text-sm text-muted-foreground">
              {t("gallery.workingNoScript")}{" "}
              <Link to={filterHref(filter, page)} className="link" reloadDocument>
                {t("gallery.refresh")}
              </Link>
            </p>
          </noscript>
        ) : null}
        {tasks.length === 0 ? (
          <EmptyState title={filtered ? t("gallery.noMatch") : t("gallery.nothingYet")} icon={<Sparkles />}>
            {filtered ? (
              <Link to="/studio" className="link">
                {t("gallery.showAll")}
              </Link>
            ) : (
              t("gallery.empty")
            )}
          </EmptyState>
        ) : (
          <ul
            className="flex flex-wrap gap-2 [--row:8rem] after:grow-[1000] after:content-[''] sm:gap-3 sm:[--row:12rem] xl:[--row:15rem]"
            aria-label={t("gallery.label")}
          >
            {groupCompared(tasks).map((group) => {
              const tile = (task: Task, caption?: string) => {
                const i = viewable.findIndex((v) => v.id === task.id);
                return (
                  <ResultTile
                    key={task.id}
                    t={task}
                    caption={caption}
                    highlight={task.id === highlight}
                    onOpen={i >= 0 ? () => lightbox.open(i) : undefined}
                    onReuse={onReuse}
                    priority={tasks.indexOf(task) < 4}
                  />
                );
              };
              if (group.length === 1) return tile(group[0]!);
              // A comparison: its results side by side in one row, each named by its model, in the order chosen.
              return (
                <li key={group[0]!.compareId} className="basis-full" data-compare={group[0]!.compareId}>
                  <p className="mb-1.5 truncate text-xs text-muted-foreground">
                    <span className="font-medium text-foreground">{t("gallery.compared")}</span> · {group[0]!.prompt}
                  </p>
                  <ul
                    className={cn("grid items-start gap-2 sm:gap-3", COMPARE_COLUMNS[group.length])}
                    aria-label={t("gallery.comparedLabel", { prompt: group[0]!.prompt })}
                  >
                    {group.map((task) => tile(task, task.label))}
                  </ul>
                </li>
              );
            })}
          </ul>
        )}
        <Pagination label={t("gallery.pages")} page={page} pages={pages} href={(p) => filterHref(filter, p)} />
        {lightbox.element}
      </section>
    </OfferingsContext.Provider>
  );
}
