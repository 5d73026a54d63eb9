import type { SessionEvent } from "@/lib/replay";
import { EventRow } from "./EventRow";
import { buildTimeline } from "./timeline";

export function SessionTimeline({ events }: { events: SessionEvent[] }) {
  const nodes = buildTimeline(events);
  return (
    <ol className="flex flex-col gap-1.5" aria-label="Timeline">
      {nodes.map((node) => (
        <li key={node.event.seq} className="flex flex-col gap-1.5">
          <EventRow event={node.event} />
          {node.children.map((child) => (
            <EventRow key={child.seq} event={child} nested />
          ))}
        </li>
      ))}
    </ol>
  );
}
