"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { addConnectorAction, cancelPullAction, startPullAction } from "@/lib/actions/connectors";
import { Button } from "@/components/ui/Button";
import { FieldError, FormError, gridInputClass as input, SubmitRow } from "@/components/ui/FormParts";
import { useActionForm } from "@/components/ui/useActionForm";

/** Adds a Langfuse connector: name, base URL, public key, and the NAME of the secret key's variable. */
export function ConnectorForm() {
  const { pending, error, run } = useActionForm();
  const empty = { name: "", baseUrl: "", publicKey: "", secretKeyEnv: "" };
  const [v, setV] = useState(empty);
  return (
    <form
      aria-label="Add a Langfuse connector"
      className="grid gap-3 sm:grid-cols-4"
      onSubmit={(e) => {
        e.preventDefault();
        run(
          () => addConnectorAction({ ...v, kind: "langfuse" }),
          () => setV(empty),
        );
      }}
    >
      {(
        [
          ["name", "Name", "langfuse-prod"],
          ["baseUrl", "Base URL", "https://cloud.langfuse.com"],
          ["publicKey", "Public key", "pk-lf-…"],
          ["secretKeyEnv", "Secret key's environment variable", "LANGFUSE_SECRET_KEY"],
        ] as const
      ).map(([key, label, placeholder]) => (
        <label key={key} className="text-sm">
          <span className="text-slate-600">{label}</span>
          <input
            name={key}
            value={v[key]}
            placeholder={placeholder}
            onChange={(e) => setV({ ...v, [key]: e.target.value })}
            className={input}
          />
          <FieldError error={error} name={key} />
        </label>
      ))}
      <SubmitRow label="Add connector" pending={pending} error={error} />
    </form>
  );
}

/** A local date-time field's value as ISO 8601 (UTC), or undefined when empty. */
function iso(local: string): string | undefined {
  if (!local) return undefined;
  const ms = Date.parse(local);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : local;
}

/** Starts a pull of one connector's traces that match a filter. */
export function PullForm({ connectorId }: { connectorId: string }) {
  const { pending, error, run } = useActionForm();
  const [v, setV] = useState({ fromTimestamp: "", toTimestamp: "", tags: "", userId: "", sessionId: "", name: "" });
  return (
    <form
      aria-label="Import from Langfuse"
      className="grid gap-3 sm:grid-cols-3"
      onSubmit={(e) => {
        e.preventDefault();
        const tags = v.tags
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean);
        const filter = {
          ...(iso(v.fromTimestamp) ? { fromTimestamp: iso(v.fromTimestamp) } : {}),
          ...(iso(v.toTimestamp) ? { toTimestamp: iso(v.toTimestamp) } : {}),
          ...(tags.length > 0 ? { tags } : {}),
          ...(v.userId ? { userId: v.userId } : {}),
          ...(v.sessionId ? { sessionId: v.sessionId } : {}),
          ...(v.name ? { name: v.name } : {}),
        };
        run(() => startPullAction({ connectorId, filter }));
      }}
    >
      {(
        [
          ["fromTimestamp", "From", "datetime-local", ""],
          ["toTimestamp", "To (default: now)", "datetime-local", ""],
          ["tags", "Tags (all of them)", "text", "prod, refunds"],
          ["name", "Trace name", "text", "support-agent"],
          ["userId", "User id", "text", ""],
          ["sessionId", "Session id", "text", ""],
        ] as const
      ).map(([key, label, type, placeholder]) => (
        <label key={key} className="text-sm">
          <span className="text-slate-600">{label}</span>
          <input
            name={key}
            type={type}
            value={v[key]}
            placeholder={placeholder}
            onChange={(e) => setV({ ...v, [key]: e.target.value })}
            className={input}
          />
          <FieldError error={error} name={`filter.${key}`} />
        </label>
      ))}
      <SubmitRow label="Import traces" pending={pending} error={error} className="sm:col-span-3" />
    </form>
  );
}

export function CancelPullButton({ connectorId, pullId }: { connectorId: string; pullId: string }) {
  const { pending, error, run } = useActionForm();
  return (
    <>
      <Button
        variant="secondary"
        disabled={pending}
        onClick={() => run(() => cancelPullAction({ connectorId, pullId }))}
      >
        Cancel
      </Button>
      <FormError error={error} />
    </>
  );
}

/** Reloads the page's data every two seconds while a pull is under way, so its progress moves. */
export function RefreshWhileRunning({ running }: { running: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => router.refresh(), 2000);
    return () => clearInterval(timer);
  }, [running, router]);
  return null;
}
