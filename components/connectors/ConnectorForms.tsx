"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { addConnectorAction, cancelPullAction, startPullAction } from "@/lib/actions/connectors";
import { Button } from "@/components/ui/Button";
import {
  FieldError,
  FormError,
  gridInputClass as input,
  GridField,
  GridFields,
  SubmitRow,
} from "@/components/ui/FormParts";
import { SCORE_OPS, scoreFilter, type ScoreOp } from "./score-filter";
import { useActionForm } from "@/components/ui/useActionForm";

type Kind = "langfuse" | "langsmith" | "phoenix" | "braintrust";

/** What each kind of connector asks for besides its name, base URL and key variable. */
const KIND_FIELDS: Record<
  Kind,
  { key: "publicKey" | "project"; label: string; placeholder: string; url: string; env: string; help: string }
> = {
  langfuse: {
    key: "publicKey",
    label: "Public key",
    placeholder: "pk-lf-…",
    url: "https://cloud.langfuse.com",
    env: "LANGFUSE_SECRET_KEY",
    help: "The project's public key, and the variable that holds its secret key.",
  },
  langsmith: {
    key: "project",
    label: "Project id",
    placeholder: "the tracing project's UUID",
    url: "https://api.smith.langchain.com",
    env: "LANGSMITH_API_KEY",
    help: "The id of the tracing project to pull from, and the variable that holds the API key.",
  },
  phoenix: {
    key: "project",
    label: "Project",
    placeholder: "the project's name or id",
    url: "https://app.phoenix.arize.com",
    env: "PHOENIX_API_KEY",
    help: "The project's name or id; the API key is optional (a self-hosted Phoenix may have none).",
  },
  braintrust: {
    key: "project",
    label: "Project id",
    placeholder: "the project's UUID",
    url: "https://api.braintrust.dev",
    env: "BRAINTRUST_API_KEY",
    help: "The id of the project whose logs to pull, and the variable that holds the API key.",
  },
};

/** Adds a connector: its kind, name, base URL, the kind's own field, and the NAME of the secret key's variable. */
export function ConnectorForm() {
  const { pending, error, run } = useActionForm();
  const empty = { name: "", baseUrl: "", publicKey: "", project: "", secretKeyEnv: "" };
  const [kind, setKind] = useState<Kind>("langfuse");
  const [v, setV] = useState(empty);
  const own = KIND_FIELDS[kind];
  return (
    <form
      aria-label="Add a connector"
      className="grid gap-3 sm:grid-cols-5"
      onSubmit={(e) => {
        e.preventDefault();
        const { publicKey, project, ...rest } = v;
        const input = kind === "langfuse" ? { ...rest, kind, publicKey } : { ...rest, kind, project };
        run(
          () => addConnectorAction(input),
          () => setV(empty),
        );
      }}
    >
      <label className="text-sm">
        <span className="text-slate-600">Platform</span>
        <select name="kind" value={kind} onChange={(e) => setKind(e.target.value as Kind)} className={input}>
          <option value="langfuse">Langfuse</option>
          <option value="langsmith">LangSmith</option>
          <option value="phoenix">Phoenix</option>
          <option value="braintrust">Braintrust</option>
        </select>
        <FieldError error={error} name="kind" />
      </label>
      <GridFields
        fields={[
          ["name", "Name", `${kind}-prod`],
          ["baseUrl", "Base URL", own.url],
          [own.key, own.label, own.placeholder],
          [
            "secretKeyEnv",
            kind !== "langfuse" ? "API key's environment variable" : "Secret key's environment variable",
            own.env,
          ],
        ]}
        values={v}
        onValues={setV}
        error={error}
      />
      <p className="text-sm text-slate-600 sm:col-span-5">{own.help}</p>
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

type PullField =
  | "fromTimestamp"
  | "toTimestamp"
  | "tags"
  | "name"
  | "userId"
  | "sessionId"
  | "query"
  | "environment"
  | "version"
  | "release"
  | "experiment"
  | "traceIds";
const PULL_FIELDS: readonly (readonly [PullField, string, string, string])[] = [
  ["fromTimestamp", "From", "datetime-local", ""],
  ["toTimestamp", "To (default: now)", "datetime-local", ""],
  ["tags", "Tags (all of them)", "text", "prod, refunds"],
  ["name", "Trace name", "text", "support-agent"],
  ["userId", "User id", "text", ""],
  ["sessionId", "Session id", "text", ""],
  ["query", "LangSmith filter", "text", 'gt(latency, "5s")'],
  ["environment", "Environment", "text", "production"],
  ["version", "Version", "text", "1.4.0"],
  ["release", "Release", "text", "v1.4.0"],
  ["experiment", "Experiment id (its rows instead of the logs)", "text", ""],
  ["traceIds", "Trace ids (instead of the rest; up to 500)", "text", "id-1, id-2"],
];
/** The fields each kind's pull reads (the server refuses the others). */
const KIND_PULL_FIELDS: Record<string, readonly PullField[]> = {
  langfuse: [
    "fromTimestamp",
    "toTimestamp",
    "tags",
    "name",
    "userId",
    "sessionId",
    "environment",
    "version",
    "release",
    "traceIds",
  ],
  langsmith: ["fromTimestamp", "toTimestamp", "tags", "name", "query", "traceIds"],
  phoenix: ["fromTimestamp", "toTimestamp", "name", "traceIds"],
  braintrust: ["fromTimestamp", "toTimestamp", "tags", "name", "query", "experiment", "traceIds"],
};
/** A field's label where a kind names it its own way (the filter in the platform's own query language). */
const KIND_LABELS: Record<string, Partial<Record<PullField, [string, string]>>> = {
  braintrust: { query: ["Braintrust SQL condition", "metrics.tokens > 1000"] },
};

/** The kinds whose pulls take a score filter (each trace read is kept when it has the score). */
const SCORE_KINDS = new Set(["langfuse"]);

/** Starts a pull of one connector's traces that match a filter. */
export function PullForm({ connectorId, kind, label }: { connectorId: string; kind: string; label: string }) {
  const { pending, error, run } = useActionForm();
  const [v, setV] = useState({
    fromTimestamp: "",
    toTimestamp: "",
    tags: "",
    userId: "",
    sessionId: "",
    name: "",
    query: "",
    environment: "",
    version: "",
    release: "",
    experiment: "",
    traceIds: "",
  });
  const [failedOnly, setFailedOnly] = useState(false);
  const [score, setScore] = useState<{ name: string; op: ScoreOp; value: string }>({ name: "", op: ">=", value: "" });
  const [every, setEvery] = useState("");
  const fields = KIND_PULL_FIELDS[kind] ?? KIND_PULL_FIELDS.langfuse!;
  return (
    <form
      aria-label={`Import from ${label}`}
      className="grid gap-3 sm:grid-cols-3"
      onSubmit={(e) => {
        e.preventDefault();
        const tags = v.tags
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean);
        const traceIds = v.traceIds
          .split(/[\s,]+/)
          .map((t) => t.trim())
          .filter(Boolean);
        const experiment = v.experiment.trim() ? { experiment: v.experiment.trim() } : {};
        const filter =
          traceIds.length > 0
            ? { traceIds, ...experiment, ...(failedOnly ? { error: true } : {}) }
            : {
                ...(iso(v.fromTimestamp) ? { fromTimestamp: iso(v.fromTimestamp) } : {}),
                ...(iso(v.toTimestamp) ? { toTimestamp: iso(v.toTimestamp) } : {}),
                ...(tags.length > 0 ? { tags } : {}),
                ...(v.userId ? { userId: v.userId } : {}),
                ...(v.sessionId ? { sessionId: v.sessionId } : {}),
                ...(v.name ? { name: v.name } : {}),
                ...(v.query ? { query: v.query } : {}),
                ...(v.environment ? { environment: v.environment } : {}),
                ...(v.version ? { version: v.version } : {}),
                ...(v.release ? { release: v.release } : {}),
                ...experiment,
                ...(failedOnly ? { error: true } : {}),
                ...(SCORE_KINDS.has(kind) ? scoreFilter(score.name, score.op, score.value) : {}),
              };
        const schedule = every.trim() !== "" ? { everyMinutes: Number(every) } : undefined;
        run(() => startPullAction({ connectorId, filter, ...(schedule ? { schedule } : {}) }));
      }}
    >
      {PULL_FIELDS.filter(([key]) => fields.includes(key)).map(([key, ownLabel, type, ownPlaceholder]) => {
        const [label, placeholder] = KIND_LABELS[kind]?.[key] ?? [ownLabel, ownPlaceholder];
        return (
          <GridField
            key={key}
            label={label}
            name={key}
            type={type}
            value={v[key]}
            placeholder={placeholder}
            onValue={(value) => setV({ ...v, [key]: value })}
            error={error}
            errorName={`filter.${key}`}
          />
        );
      })}
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name="error" checked={failedOnly} onChange={(e) => setFailedOnly(e.target.checked)} />
        <span className="text-slate-600">
          Only runs that failed
          {kind === "langfuse"
            ? " (Langfuse cannot filter on this: each trace is read, and kept when one of its observations has level ERROR)"
            : ""}
        </span>
        <FieldError error={error} name="filter.error" />
      </label>
      {SCORE_KINDS.has(kind) ? (
        <fieldset className="grid gap-2 sm:col-span-3 sm:grid-cols-3">
          <legend className="text-sm text-slate-600">
            With a score (optional: each trace is read, and kept when it has this score)
          </legend>
          <GridField
            label="Score name"
            name="scoreName"
            value={score.name}
            placeholder="helpfulness"
            onValue={(value) => setScore({ ...score, name: value })}
            error={error}
            errorName="filter.score.name"
          />
          <label className="text-sm">
            <span className="text-slate-600">Compared by</span>
            <select
              name="scoreOp"
              value={score.op}
              onChange={(e) => setScore({ ...score, op: SCORE_OPS.find((o) => o === e.target.value) ?? ">=" })}
              className={input}
            >
              {SCORE_OPS.map((op) => (
                <option key={op} value={op}>
                  {op}
                </option>
              ))}
            </select>
            <FieldError error={error} name="filter.score.op" />
          </label>
          <GridField
            label="Value (a number, true / false, or text)"
            name="scoreValue"
            value={score.value}
            placeholder="0.8"
            onValue={(value) => setScore({ ...score, value })}
            error={error}
            errorName="filter.score.value"
          />
          <FieldError error={error} name="filter.score" />
        </fieldset>
      ) : null}
      <GridField
        label="Repeat every (minutes, optional)"
        name="everyMinutes"
        type="number"
        min={5}
        max={10080}
        value={every}
        placeholder="60"
        onValue={setEvery}
        error={error}
        errorName="schedule.everyMinutes"
      />
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
