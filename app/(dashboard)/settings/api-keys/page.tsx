import type { Metadata } from "next";
import Link from "next/link";
import { ApiKeyManager } from "@/components/settings/ApiKeyManager";
import { PageHeader } from "@/components/ui/PageHeader";
import { db } from "@/lib/db";
import { listApiKeys } from "@/lib/db/api-keys";
import { pagePrincipal } from "@/lib/http/principal";
import { can } from "@/lib/server/authz";
import { createApiKeyAction, revokeApiKeyAction } from "./actions";

export const metadata: Metadata = { title: "API keys" };
export const dynamic = "force-dynamic";

export default async function ApiKeysPage() {
  const principal = await pagePrincipal();
  // Admins see every key (and may revoke any); others their own.
  const all = can(principal, "api_keys.manage");
  const keys = await listApiKeys(await db(), all ? {} : { userId: principal.userId ?? "-" });
  return (
    <>
      <div className="mb-2 text-sm">
        <Link href="/settings" className="text-slate-500 hover:text-slate-900">
          ← Settings
        </Link>
      </div>
      <PageHeader
        title="API keys"
        subtitle={
          <>
            Send a key as <code className="font-mono">Authorization: Bearer &lt;key&gt;</code> to{" "}
            <code className="font-mono">/api/v1/*</code>; trace exporters may also use{" "}
            <code className="font-mono">OTEL_EXPORTER_OTLP_HEADERS=x-api-key=&lt;key&gt;</code>. Only a hash of each key
            is stored. A key acts with its owner's role and stops working when they are deactivated.
          </>
        }
      />
      <ApiKeyManager
        keys={keys.map((k) => ({
          id: k.id,
          name: all ? `${k.name} · ${k.user?.email ?? "environment (admin)"}${k.readOnly ? " · read-only" : ""}` : `${k.name}${k.readOnly ? " · read-only" : ""}`,
          prefix: k.prefix,
          createdAt: k.createdAt.toISOString(),
          lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
          revokedAt: k.revokedAt?.toISOString() ?? null,
        }))}
        createAction={createApiKeyAction}
        revokeAction={revokeApiKeyAction}
      />
    </>
  );
}
