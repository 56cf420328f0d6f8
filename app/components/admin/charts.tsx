/**
 * Charts for the admin dashboard, drawn with visx as plain SVG: they render on the server and show without
 * JavaScript. Each is an `<svg role="img">` named by its `<title>` and described by its `<desc>`, with the same
 * numbers in a table below it for screen readers and for reading exact values.
 */
import { AxisBottom, AxisLeft, type TickRendererProps } from "@visx/axis";
import { Group } from "@visx/group";
import { scaleBand, scaleLinear } from "@visx/scale";
import { BarGroup, BarStack, LinePath } from "@visx/shape";
import { type ReactNode, useId } from "react";
import { TableScroll } from "~/components/ui";

/** Mid-tone colours readable on light and dark backgrounds. */
export const PALETTE = ["#6366f1", "#10b981", "#f59e0b", "#ef4444", "#06b6d4", "#a855f7", "#84cc16", "#ec4899"];
const colorAt = (i: number) => PALETTE[i % PALETTE.length]!;

const WIDTH = 720;
const HEIGHT = 260;
const MARGIN = { top: 12, right: 12, bottom: 36, left: 56 };
const INNER_W = WIDTH - MARGIN.left - MARGIN.right;
const INNER_H = HEIGHT - MARGIN.top - MARGIN.bottom;

/** A chart's drawing box: the wide one (scrolls inside its frame below 480 px) or a phone's. */
interface Layout {
  width: number;
  height: number;
  margin: typeof MARGIN;
  innerW: number;
  innerH: number;
  /** At most this many category labels. */
  labels: number;
  /** The narrowest the SVG is drawn (px); 0: it shrinks with the page. */
  minWidth: number;
}
const WIDE: Layout = {
  width: WIDTH,
  height: HEIGHT,
  margin: MARGIN,
  innerW: INNER_W,
  innerH: INNER_H,
  labels: 10,
  minWidth: 480,
};
const PHONE_MARGIN = { top: 12, right: 8, bottom: 32, left: 36 };
// Drawn about as wide as a phone's card, so its 11-unit text stays about 10 px.
const PHONE: Layout = {
  width: 340,
  height: 220,
  margin: PHONE_MARGIN,
  innerW: 340 - PHONE_MARGIN.left - PHONE_MARGIN.right,
  innerH: 220 - PHONE_MARGIN.top - PHONE_MARGIN.bottom,
  labels: 5,
  minWidth: 0,
};
const AXIS = { fill: "currentColor", fontSize: 11, fontFamily: "inherit" } as const;
const LEFT_AXIS = { ...AXIS, textAnchor: "end", verticalAnchor: "middle" } as const;

interface FrameProps {
  title: string;
  description: string;
  legend: { label: string; color: string }[];
  table: { columns: string[]; rows: ReactNode[][] };
  children: (ids: { title: string; desc: string }) => ReactNode;
}

function ChartFrame({ title, legend, table, children }: FrameProps) {
  const id = useId();
  const ids = { title: `${id}-title`, desc: `${id}-desc` };
  return (
    <figure className="min-w-0 space-y-2">
      <figcaption className="text-sm font-medium">{title}</figcaption>
      <TableScroll label={title} className="text-muted-foreground">
        {children(ids)}
      </TableScroll>
      {legend.length > 1 ? (
        <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-muted-foreground">
          {legend.map((l) => (
            <li key={l.label} className="flex items-center gap-1.5">
              <svg aria-hidden="true" width="10" height="10" viewBox="0 0 10 10" className="shrink-0">
                <rect width="10" height="10" rx="2" fill={l.color} />
              </svg>
              {l.label}
            </li>
          ))}
        </ul>
      ) : null}
      <details className="text-xs">
        <summary className="cursor-pointer text-muted-foreground">Data table</summary>
        <TableScroll label={`${title}: data`} className="mt-2 max-h-72 overflow-y-auto">
          <table className="w-full text-left">
            <caption className="sr-only">{title}</caption>
            <thead>
              <tr>
                {table.columns.map((c) => (
                  <th key={c} scope="col" className="px-2 py-1 font-medium">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((r, i) => (
                <tr key={i} className="border-t border-border">
                  {r.map((v, j) => (
                    <td key={j} className="px-2 py-1 tabular-nums">
                      {v}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      </details>
    </figure>
  );
}

function Svg({
  ids,
  title,
  description,
  layout = WIDE,
  className,
  children,
}: {
  ids: { title: string; desc: string };
  title: string;
  description: string;
  layout?: Layout;
  className?: string;
  children: ReactNode;
}) {
  return (
    <svg
      role="img"
      aria-labelledby={`${ids.title} ${ids.desc}`}
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      className={`h-auto w-full ${layout.minWidth ? "min-w-[480px]" : ""} ${className ?? ""}`}
    >
      <title id={ids.title}>{title}</title>
      <desc id={ids.desc}>{description}</desc>
      {children}
    </svg>
  );
}

/** Day labels read "11-27"; a 90-day axis shows about one in ten. */
const shortDay = (d: string) => d.slice(5);
const everyNth = (labels: string[], most = 10) => Math.max(1, Math.ceil(labels.length / most));

/**
 * A tick label as a plain SVG `<text>` with attributes only: visx's default wraps each label in a nested `<svg>`
 * with an inline `overflow` style, which the pages' CSP refuses (a reported violation on every chart).
 */
function TickLabel({
  formattedValue,
  x,
  y,
  dx,
  dy,
  fill,
  fontSize,
  fontFamily,
  textAnchor,
  verticalAnchor,
}: TickRendererProps) {
  const baseline = verticalAnchor === "middle" ? "middle" : verticalAnchor === "end" ? "auto" : "hanging";
  return (
    <text
      x={x}
      y={y}
      dx={dx}
      dy={dy}
      fill={fill}
      fontSize={fontSize}
      fontFamily={fontFamily}
      textAnchor={textAnchor}
      dominantBaseline={baseline}
    >
      {formattedValue}
    </text>
  );
}

/** A count axis on the left and a category axis below that labels about ten of the categories. */
function CategoryAxes({
  x,
  y,
  categories,
  format,
  layout = WIDE,
}: {
  x: ReturnType<typeof scaleBand<string>>;
  y: ReturnType<typeof scaleLinear<number>>;
  categories: string[];
  format: (c: string) => string;
  layout?: Layout;
}) {
  const step = everyNth(categories, layout.labels);
  return (
    <>
      <AxisLeft
        scale={y}
        numTicks={5}
        stroke="currentColor"
        tickStroke="currentColor"
        // Counts: no label at a fractional tick ("4.5 tasks").
        tickFormat={(v) => (Number.isInteger(Number(v)) ? String(v) : "")}
        tickLabelProps={LEFT_AXIS}
        tickComponent={TickLabel}
      />
      <AxisBottom
        top={layout.innerH}
        scale={x}
        stroke="currentColor"
        tickStroke="currentColor"
        tickValues={categories.filter((_, i) => i % step === 0)}
        tickFormat={(c) => format(String(c))}
        tickLabelProps={AXIS}
        tickComponent={TickLabel}
      />
    </>
  );
}

export function StackedBars(props: {
  title: string;
  description: string;
  categories: string[];
  series: string[];
  value: (category: string, series: string) => number;
  formatCategory?: (c: string) => string;
  /** Below the `sm` breakpoint draw a phone-sized chart that fits the page instead of scrolling sideways. */
  fitPhone?: boolean;
}) {
  const { categories, series, value } = props;
  const rows = categories.map((c) => ({ c, ...Object.fromEntries(series.map((s) => [s, value(c, s)])) }));
  const max = Math.max(1, ...categories.map((c) => series.reduce((sum, s) => sum + value(c, s), 0)));
  const color = (s: string) => colorAt(series.indexOf(s));
  const fmt = props.formatCategory ?? ((c: string) => c);
  const chart = (ids: { title: string; desc: string }, layout: Layout, className?: string) => {
    const x = scaleBand({ domain: categories, range: [0, layout.innerW], padding: 0.2 });
    const y = scaleLinear({ domain: [0, max], range: [layout.innerH, 0], nice: true });
    return (
      <Svg ids={ids} title={props.title} description={props.description} layout={layout} className={className}>
        <Group left={layout.margin.left} top={layout.margin.top}>
          {series.length > 0 ? (
            <BarStack data={rows} keys={series} x={(r) => r.c} xScale={x} yScale={y} color={(s) => color(String(s))} />
          ) : null}
          <CategoryAxes x={x} y={y} categories={categories} format={fmt} layout={layout} />
        </Group>
      </Svg>
    );
  };
  return (
    <ChartFrame
      title={props.title}
      description={props.description}
      legend={series.map((s) => ({ label: s, color: color(s) }))}
      table={{
        columns: ["", ...series],
        rows: categories.map((c) => [fmt(c), ...series.map((s) => value(c, s))]),
      }}
    >
      {(ids) =>
        props.fitPhone ? (
          <>
            {chart(ids, WIDE, "hidden sm:block")}
            {/* display:none hides the other from assistive technology too; its own ids keep them unique. */}
            {chart({ title: `${ids.title}-phone`, desc: `${ids.desc}-phone` }, PHONE, "sm:hidden")}
          </>
        ) : (
          chart(ids, WIDE)
        )
      }
    </ChartFrame>
  );
}

export function GroupedBars(props: {
  title: string;
  description: string;
  categories: string[];
  series: { key: string; label: string }[];
  value: (category: string, series: string) => number;
  formatValue: (v: number) => string;
}) {
  const { categories, series, value } = props;
  const keys = series.map((s) => s.key);
  const rows = categories.map((c) => ({ c, ...Object.fromEntries(keys.map((k) => [k, value(c, k)])) }));
  const all = categories.flatMap((c) => keys.map((k) => value(c, k)));
  const x0 = scaleBand({ domain: categories, range: [0, INNER_W], padding: 0.25 });
  const x1 = scaleBand({ domain: keys, range: [0, x0.bandwidth()], padding: 0.1 });
  const y = scaleLinear({ domain: [Math.min(0, ...all), Math.max(1, ...all)], range: [INNER_H, 0], nice: true });
  const color = (k: string) => colorAt(keys.indexOf(k));
  const zero = y(0);
  return (
    <ChartFrame
      title={props.title}
      description={props.description}
      legend={series.map((s) => ({ label: s.label, color: color(s.key) }))}
      table={{
        columns: ["", ...series.map((s) => s.label)],
        rows: categories.map((c) => [c, ...keys.map((k) => props.formatValue(value(c, k)))]),
      }}
    >
      {(ids) => (
        <Svg ids={ids} title={props.title} description={props.description}>
          <Group left={MARGIN.left} top={MARGIN.top}>
            <BarGroup
              data={rows}
              keys={keys}
              height={INNER_H}
              x0={(r) => r.c}
              x0Scale={x0}
              x1Scale={x1}
              yScale={y}
              color={color}
            >
              {(groups) =>
                groups.map((g) => (
                  <Group key={g.index} left={g.x0}>
                    {g.bars.map((b) => {
                      const top = Math.min(y(b.value), zero);
                      return (
                        <rect
                          key={b.key}
                          x={b.x}
                          y={top}
                          width={b.width}
                          height={Math.abs(zero - y(b.value))}
                          fill={b.color}
                        />
                      );
                    })}
                  </Group>
                ))
              }
            </BarGroup>
            <AxisLeft
              scale={y}
              numTicks={5}
              stroke="currentColor"
              tickStroke="currentColor"
              tickFormat={(v) => props.formatValue(Number(v))}
              tickLabelProps={LEFT_AXIS}
            />
            <AxisBottom top={zero} scale={x0} stroke="currentColor" tickStroke="currentColor" tickLabelProps={AXIS} />
          </Group>
        </Svg>
      )}
    </ChartFrame>
  );
}

export function Lines(props: {
  title: string;
  description: string;
  categories: string[];
  series: { key: string; label: string }[];
  value: (category: string, series: string) => number;
  formatCategory?: (c: string) => string;
}) {
  const { categories, series, value } = props;
  const x = scaleBand({ domain: categories, range: [0, INNER_W], padding: 0 });
  const max = Math.max(1, ...categories.flatMap((c) => series.map((s) => value(c, s.key))));
  const y = scaleLinear({ domain: [0, max], range: [INNER_H, 0], nice: true });
  const fmt = props.formatCategory ?? ((c: string) => c);
  const mid = x.bandwidth() / 2;
  return (
    <ChartFrame
      title={props.title}
      description={props.description}
      legend={series.map((s, i) => ({ label: s.label, color: colorAt(i) }))}
      table={{
        columns: ["", ...series.map((s) => s.label)],
        rows: categories.map((c) => [fmt(c), ...series.map((s) => value(c, s.key))]),
      }}
    >
      {(ids) => (
        <Svg ids={ids} title={props.title} description={props.description}>
          <Group left={MARGIN.left} top={MARGIN.top}>
            {series.map((s, i) => (
              <LinePath
                key={s.key}
                data={categories}
                x={(c) => (x(c) ?? 0) + mid}
                y={(c) => y(value(c, s.key))}
                stroke={colorAt(i)}
                strokeWidth={2}
              />
            ))}
            <CategoryAxes x={x} y={y} categories={categories} format={fmt} />
          </Group>
        </Svg>
      )}
    </ChartFrame>
  );
}

export { shortDay };
