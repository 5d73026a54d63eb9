import type { Metadata } from "next";
import {
  AllowedHostForm,
  ModelEndpointForm,
  RemoveButton,
  ToolEndpointForm,
} from "@/components/settings/ExecutorForms";
import { Badge } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { SettingsHeader } from "@/components/settings/SettingsHeader";
import { pageContext } from "@/lib/http/page";
import { executorSettings } from "@/lib/server/executors/executors";
import { listMcpExecutors } from "@/lib/server/executors/mcp-servers";
import { DataTable } from "@/components/ui/DataTable";
import { DEMO_MODEL } from "@/lib/executors/demo-model";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Live executors" };

/** A settings panel: a heading and a line saying what the list is for. */
function Section({ title, hint, children }: { title: string; hint: string; children: React.ReactNode }) {
  return (
    <Card padding="lg">
      <h2 className="text-base font-semibold text-slate-900">{title}</h2>
      <p className="mb-4 text-sm text-slate-600">{hint}</p>
      {children}
    </Card>
  );
}

export default async function ExecutorsPage() {
  const { principal, prisma } = await pageContext();
  const { models, tools, hosts } = await executorSettings(principal, {}, prisma);
  const mcpServers = await listMcpExecutors(principal, prisma);
  return (
    <>
      <SettingsHeader
        title="Live executors"
        subtitle="Where replays send model steps and tool calls that a policy runs live. Every call goes only to hosts on the allow-list."
      />
      <div className="space-y-6">
        <Section title="Allowed hosts" hint="A live call to a host not listed here is refused, and the step shows why.">
          {hosts.length === 0 ? (
            <p className="mb-3 text-sm text-slate-500">
              No hosts allowed yet: add the host of each endpoint below (host or host:port).
            </p>
          ) : (
            <ul className="mb-3 flex flex-wrap gap-2" data-testid="allowed-hosts">
              {hosts.map((h) => (
                <li
                  key={h.id}
                  className="flex items-center gap-2 rounded border border-slate-200 px-2 py-1 font-mono text-sm"
                >
                  {h.host} <RemoveButton kind="host" id={h.id} label={h.host} />
                </li>
              ))}
            </ul>
          )}
          <AllowedHostForm />
        </Section>
        <Section
          title="Model endpoints"
          hint="OpenAI-compatible: the replay calls {base URL}/chat/completions. Give the NAME of the environment variable that holds the key; the key stays on the server."
        >
          <p className="mb-3 text-sm text-slate-600" data-testid="demo-model">
            Built in: <span className="font-medium text-slate-900">{DEMO_MODEL.name}</span>{" "}
            <Badge tone="neutral">demo data only</Badge> answers in-process, without a network, for the demo sessions
            only: a script that reacts to the tool results it is shown, so an edit on a demo run can change the
            agent&apos;s answer. It is not a real model and never runs for your own sessions.
          </p>
          {models.length === 0 ? (
            <p className="mb-3 text-sm text-slate-500">
              No model endpoints: live model policies (pinned-live, compatible-live, determinism-probe) cannot run until
              you add one.
            </p>
          ) : (
            <DataTable
              frame={false}
              dense
              className="mb-4"
              columns={["Name", "Base URL", "Model", "Key", { label: "Actions", srOnly: true }]}
            >
              {models.map((m) => (
                <tr key={m.id} className="border-t border-slate-100">
                  <td className="py-1.5 font-medium">{m.name}</td>
                  <td className="font-mono text-xs">
                    {m.baseUrl} {m.hostAllowed ? null : <Badge tone="bad">host not allowed</Badge>}
                  </td>
                  <td className="font-mono text-xs">{m.model}</td>
                  <td className="text-xs">
                    {m.apiKeyEnv ? (
                      <>
                        ${m.apiKeyEnv}{" "}
                        {m.keySet ? <Badge tone="good">set</Badge> : <Badge tone="bad">not set on the server</Badge>}
                      </>
                    ) : (
                      <span className="text-slate-500">no key</span>
                    )}
                  </td>
                  <td className="text-right">
                    <RemoveButton kind="model" id={m.id} label={m.name} />
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
          <ModelEndpointForm />
        </Section>
        <Section
          title="Tool endpoints"
          hint="One HTTP URL per tool. The replay POSTs { tool, args, callId } as JSON and reads { output } or { error: { type, message } } (any other JSON is the output)."
        >
          {tools.length === 0 ? (
            <p className="mb-3 text-sm text-slate-500">
              No tool endpoints: a passthrough rule for a tool without one gives the agent a tool error that says so.
            </p>
          ) : (
            <DataTable
              frame={false}
              dense
              className="mb-4"
              columns={["Tool", "URL", "Timeout", "Read-only", { label: "Actions", srOnly: true }]}
            >
              {tools.map((t) => (
                <tr key={t.id} className="border-t border-slate-100">
                  <td className="py-1.5 font-mono">{t.toolName}</td>
                  <td className="font-mono text-xs">
                    {t.url} {t.hostAllowed ? null : <Badge tone="bad">host not allowed</Badge>}
                  </td>
                  <td className="tabular-nums">{t.timeoutMs} ms</td>
                  <td>{t.readOnly ? <Badge tone="good">read-only</Badge> : <Badge tone="warn">side effects</Badge>}</td>
                  <td className="text-right">
                    <RemoveButton kind="tool" id={t.id} label={t.toolName} />
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
          <ToolEndpointForm />
        </Section>
        <Section
          title="MCP servers"
          hint="Upstream MCP servers (streamable HTTP) for agents that replay through Branchpoint's MCP proxy: it lists their tools and runs passthrough calls on them. A policy names one in mcpServer; without it, the only one registered is used. Register with POST /api/v1/executors/mcp { name, url }."
        >
          {mcpServers.length === 0 ? (
            <p className="text-sm text-slate-500">
              No MCP servers: the MCP proxy lists the recording&apos;s tools and cannot run a passthrough call.
            </p>
          ) : (
            <DataTable frame={false} dense columns={["Name", "URL", { label: "Actions", srOnly: true }]}>
              {mcpServers.map((m) => (
                <tr key={m.id} className="border-t border-slate-100" data-testid="mcp-server">
                  <td className="py-1.5 font-medium">{m.name}</td>
                  <td className="font-mono text-xs">
                    {m.url} {m.hostAllowed ? null : <Badge tone="bad">host not allowed</Badge>}
                  </td>
                  <td className="text-right">
                    <RemoveButton kind="mcp" id={m.id} label={m.name} />
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </Section>
      </div>
    </>
  );
}
