import type { SessionEvent } from "@/lib/replay";
import { EventRow } from "./EventRow";
import { buildTimeline, searchTextOf } from "./timeline";

/** The steps, tool calls under the model call that asked for them; several calls of one step are marked parallel. */
export function SessionTimeline({ events }: { events: SessionEvent[] }) {
  const nodes = buildTimeline(events);
  return (
    <ol className="flex flex-col gap-1.5" aria-label="Timeline">
      {nodes.map((node) => (
        <li
          key={node.event.seq}
          className="flex flex-col gap-1.5"
          data-search={[node.event, ...node.children].map(searchTextOf).join("\n")}
        >
          <EventRow event={node.event} />
          {node.children.length > 1 ? (
            <div
              className="ml-6 flex flex-col gap-1.5 rounded-md border border-dashed border-indigo-300 p-1.5"
              data-testid="parallel-group"
            >
              <div className="text-xs font-medium text-indigo-700">
                parallel · {node.children.length} calls asked for at once
              </div>
              {node.children.map((child) => (
                <EventRow key={child.seq} event={child} nested />
              ))}
            </div>
          ) : (
            node.children.map((child) => <EventRow key={child.seq} event={child} nested />)
          )}
        </li>
      ))}
    </ol>
  );
}
