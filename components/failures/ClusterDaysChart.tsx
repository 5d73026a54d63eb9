import { BarChartClient } from "@/components/charts/BarChartClient";
import { ChartFigure } from "@/components/charts/ChartFigure";
import { numberColumn } from "@/components/ui/DataTable";
import { plural } from "@/lib/format";

/** A cluster's sessions per day (UTC), with the numbers under the drawing. */
export function ClusterDaysChart({ days }: { days: { day: string; sessions: number }[] }) {
  const busiest = days.reduce<{ day: string; sessions: number } | null>(
    (best, d) => (best === null || d.sessions > best.sessions ? d : best),
    null,
  );
  return (
    <ChartFigure
      id="cluster-days"
      title="Sessions per day"
      summary={
        busiest
          ? `${plural(
              days.reduce((n, d) => n + d.sessions, 0),
              "session",
            )} over ${plural(days.length, "day")}; the most on ${busiest.day} (${busiest.sessions}).`
          : null
      }
      empty={
        days.length === 0 ? "No session is in this cluster any more: its sessions were merged or split off." : undefined
      }
      columns={["Day (UTC)", numberColumn("Sessions")]}
      rows={days.map((d) => [d.day, d.sessions])}
    >
      <BarChartClient
        data={days.map((d) => ({ day: d.day, sessions: d.sessions }))}
        xKey="day"
        bars={[{ key: "sessions", name: "Sessions", color: "warn" }]}
        labels={days.length <= 20}
      />
    </ChartFigure>
  );
}
