"use client";

import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import type { AgentAccess } from "@/lib/server/agent/agent-access";

/** Where an agent-driven branch is reached: its token (shown once) and its endpoints. */
export type AgentAccessView = AgentAccess;

/** The shell lines that point an agent at the branch: the OpenAI and Anthropic clients read these variables. */
export function agentEnvironment(access: AgentAccessView): string {
  const replayUrl = access.finishUrl.replace(/\/agent\/finish$/, "");
  return [
    `export OPENAI_BASE_URL=${access.openaiBaseUrl}`,
    `export OPENAI_API_KEY=${access.token}`,
    `export ANTHROPIC_BASE_URL=${access.anthropicBaseUrl}`,
    `export ANTHROPIC_API_KEY=${access.token}`,
    `export BRANCHPOINT_REPLAY_URL=${replayUrl}`,
    `export BRANCHPOINT_REPLAY_TOKEN=${access.token}`,
  ].join("\n");
}

/** The call that ends the branch when the agent is done (the CLI and the SDK make it for you). */
export function finishCommand(access: AgentAccessView): string {
  return `curl -X POST ${access.finishUrl} -H "authorization: Bearer ${access.token}" -H "content-type: application/json" -d '{"finalOutput":"…"}'`;
}

/**
 * After "Run with my agent": what to run, once. The token is a secret for this branch only; it is not shown
 * again, and it stops working when the branch ends.
 */
export function AgentConnectPanel({ replayId, access }: { replayId: string; access: AgentAccessView }) {
  const env = agentEnvironment(access);
  return (
    <Card padding="lg" aria-label="Connect your agent">
      <h2 className="text-base font-semibold text-slate-900">Connect your agent</h2>
      <p className="mt-1 text-sm text-slate-600">
        The branch waits for your agent. Set these variables where it runs, then start it as you always do: its model
        calls and tool calls are answered under this policy, and each step appears on the branch&apos;s page as it
        happens. Copy the token now: it is shown only this once and works only for this branch, until it ends.
      </p>
      <CopyBlock label="Environment" text={env} testId="agent-environment" />
      <p className="mt-4 text-sm text-slate-600">
        When the agent is done, end the branch with its answer (the <code>branchpoint</code> CLI does this for you; the
        SDK&apos;s client has <code>finish()</code>):
      </p>
      <CopyBlock label="Finish" text={finishCommand(access)} testId="agent-finish-command" />
      <Link
        href={`/replays/${replayId}`}
        className="mt-4 inline-block text-sm font-medium text-indigo-700 hover:underline"
      >
        Open the branch →
      </Link>
    </Card>
  );
}

function CopyBlock({ label, text, testId }: { label: string; text: string; testId: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard?.writeText(text).catch(() => undefined);
    setCopied(true);
  };
  return (
    <div className="mt-3">
      <div className="flex items-center justify-between gap-2">
        <span className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</span>
        <Button variant="secondary" onClick={copy}>
          {copied ? "Copied" : "Copy"}
        </Button>
      </div>
      <pre
        data-testid={testId}
        className="mt-1 overflow-x-auto rounded-md bg-slate-900 p-3 text-xs leading-relaxed text-slate-100"
      >
        {text}
      </pre>
    </div>
  );
}

export type Driver = "server" | "agent";

/** Who drives the branch: Branchpoint's engine continues the recording, or the user's own agent runs against it. */
export function DriverChoice({
  driver,
  onChange,
  hasEdits,
}: {
  driver: Driver;
  onChange: (driver: Driver) => void;
  hasEdits: boolean;
}) {
  const option = (value: Driver, title: string, text: string) => (
    <label className="flex items-start gap-2 text-sm">
      <input
        type="radio"
        name="driver"
        value={value}
        checked={driver === value}
        onChange={() => onChange(value)}
        className="mt-1"
      />
      <span>
        <span className="font-medium text-slate-900">{title}</span>
        <span className="block text-slate-600">{text}</span>
      </span>
    </label>
  );
  return (
    <Card padding="lg" as="div">
      <fieldset className="space-y-3">
        <legend className="text-base font-semibold text-slate-900">Who runs the branch</legend>
        {option(
          "server",
          "Branchpoint",
          "The recorded conversation is continued here, and each tool call is answered by the policy.",
        )}
        {option(
          "agent",
          "Run with my agent",
          "Your own agent runs, pointed at Branchpoint: its code decides each next step, and its model and tool calls are answered by the policy.",
        )}
      </fieldset>
      {driver === "agent" && hasEdits ? (
        <p className="mt-3 text-sm text-amber-800" role="note">
          Edits apply when Branchpoint runs the branch. With your agent, change what a tool returns with a rule in the
          policy (a fixed answer or a fixture), or remove the edits.
        </p>
      ) : null}
    </Card>
  );
}
