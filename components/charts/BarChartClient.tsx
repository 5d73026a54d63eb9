"use client";

import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  ErrorBar,
  LabelList,
  ReferenceLine,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { CHART_COLORS, type ChartColor } from "./colors";

export type ChartRow = Record<string, string | number | [number, number] | null>;

export interface BarSpec {
  /** The row field holding this bar's value. */
  key: string;
  /** What the legend and the tooltip call it. */
  name: string;
  color: ChartColor;
  /** A row field holding `[below, above]` distances from the value: an interval drawn as an error bar. */
  errorKey?: string;
}

export interface BarChartProps {
  data: ChartRow[];
  /** The row field naming each category on the x axis. */
  xKey: string;
  bars: BarSpec[];
  /** Fixed value range (e.g. [0, 100] for percentages); otherwise from the data. */
  yDomain?: [number, number];
  /** Appended to tick and bar labels ("%", " ms"). */
  unit?: string;
  /** A horizontal line, e.g. the threshold a probe must reach. */
  referenceY?: { value: number; label: string };
  /** Rows whose first bar is drawn in another colour (the deciding step). */
  highlight?: { index: number; color: ChartColor };
  /** Colour the first bar by sign: above zero `positive`, below `negative` (deltas). */
  bySign?: { positive: ChartColor; negative: ChartColor };
  height?: number;
  /** Print each bar's value above it. */
  labels?: boolean;
}

const tick = { fill: CHART_COLORS.text, fontSize: 12 };

/**
 * The one chart of the app: bars over categories, with optional intervals, a reference line and one marked bar.
 * Drawn in the browser (recharts measures the page); the figure around it holds the text alternative, so the
 * drawing itself is hidden from screen readers and out of the tab order.
 */
export function BarChartClient({
  data,
  xKey,
  bars,
  yDomain,
  unit = "",
  referenceY,
  highlight,
  bySign,
  height = 220,
  labels = true,
}: BarChartProps) {
  return (
    <BarChart
      responsive
      style={{ width: "100%", height, maxWidth: Math.max(360, data.length * bars.length * 96 + 120) }}
      data={data}
      margin={{ top: 20, right: 16, bottom: 4, left: data.length > 4 ? 56 : 4 }}
      accessibilityLayer={false}
    >
      <CartesianGrid stroke={CHART_COLORS.grid} vertical={false} />
      {/* Many categories: their names slant so they do not run into each other. */}
      <XAxis
        dataKey={xKey}
        tick={tick}
        stroke={CHART_COLORS.axis}
        interval={0}
        {...(data.length > 4 ? { angle: -30, textAnchor: "end", height: 90 } : {})}
      />
      <YAxis
        tick={tick}
        stroke={CHART_COLORS.axis}
        domain={yDomain ?? [0, "auto"]}
        unit={unit}
        width={56}
        allowDecimals={false}
      />
      <Tooltip
        cursor={{ fill: CHART_COLORS.cursor }}
        contentStyle={{
          background: CHART_COLORS.surface,
          borderColor: CHART_COLORS.grid,
          color: CHART_COLORS.strong,
          fontSize: 12,
        }}
        formatter={(value) => `${String(value)}${unit}`}
      />
      {referenceY ? (
        <ReferenceLine
          y={referenceY.value}
          stroke={CHART_COLORS.threshold}
          strokeDasharray="6 4"
          label={{ value: referenceY.label, position: "insideTopRight", fill: CHART_COLORS.strong, fontSize: 12 }}
        />
      ) : null}
      {bySign ? <ReferenceLine y={0} stroke={CHART_COLORS.axis} /> : null}
      {bars.map((b, i) => (
        <Bar
          key={b.key}
          dataKey={b.key}
          name={b.name}
          fill={CHART_COLORS[b.color]}
          isAnimationActive={false}
          minPointSize={2}
          maxBarSize={72}
        >
          {i === 0 && (highlight || bySign)
            ? data.map((row, k) => {
                const v = Number(row[b.key] ?? 0);
                const color =
                  highlight && highlight.index === k
                    ? highlight.color
                    : bySign
                      ? v > 0
                        ? bySign.positive
                        : bySign.negative
                      : b.color;
                return <Cell key={k} fill={CHART_COLORS[color]} />;
              })
            : null}
          {b.errorKey ? (
            <ErrorBar dataKey={b.errorKey} width={10} strokeWidth={2} stroke={CHART_COLORS.strong} direction="y" />
          ) : null}
          {labels ? (
            <LabelList
              dataKey={b.key}
              position="top"
              fill={CHART_COLORS.strong}
              fontSize={12}
              formatter={(v) => `${String(v)}${unit}`}
            />
          ) : null}
        </Bar>
      ))}
    </BarChart>
  );
}
