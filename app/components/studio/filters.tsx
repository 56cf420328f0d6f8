import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { cn } from "~/components/ui";
import type { Data } from "./types";

export function filterHref(filter: { type: string; status: string }, page = 1) {
  const q = new URLSearchParams();
  if (filter.type) q.set("type", filter.type);
  if (filter.status) q.set("status", filter.status);
  if (page > 1) q.set("page", String(page));
  const s = q.toString();
  // To the gallery, not the top of the studio: after paging or filtering, the results are what the person looks for.
  return `/studio${s ? `?${s}` : ""}#gallery`;
}

export function Filters({ filter }: { filter: Data["filter"] }) {
  const { t } = useTranslation("studio");
  const pill = (active: boolean) =>
    cn(
      "rounded-full px-2.5 py-1 text-sm font-medium transition sm:px-3",
      active ? "bg-foreground text-background" : "text-muted-foreground hover:bg-muted hover:text-foreground",
    );
  const types = [
    ["", t("filters.all")],
    ["image", t("filters.images")],
    ["video", t("filters.videos")],
  ] as const;
  const statuses = [
    ["", t("filters.anyStatus")],
    ["completed", t("filters.completed")],
    ["running", t("filters.running")],
    ["failed", t("filters.failed")],
  ] as const;
  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
      <nav aria-label={t("filters.byType")} className="flex gap-1">
        {types.map(([v, label]) => (
          <Link
            key={label}
            to={filterHref({ ...filter, type: v })}
            className={pill(filter.type === v)}
            aria-current={filter.type === v ? "true" : undefined}
          >
            {label}
          </Link>
        ))}
      </nav>
      <nav aria-label={t("filters.byStatus")} className="flex flex-wrap gap-1">
        {statuses.map(([v, label]) => (
          <Link
            key={label}
            to={filterHref({ ...filter, status: v })}
            className={pill(filter.status === v)}
            aria-current={filter.status === v ? "true" : undefined}
          >
            {label}
          </Link>
        ))}
      </nav>
    </div>
  );
}
