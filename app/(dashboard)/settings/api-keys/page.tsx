import type { Metadata } from "next";
import { ApiKeyManager } from "@/components/settings/ApiKeyManager";
import { SettingsHeader } from "@/components/settings/SettingsHeader";
import { pageContext } from "@/lib/http/page";
import { listApiKeys } from "@/lib/server/team/api-keys";
import { createApiKeyAction, revokeApiKeyAction } from "@/lib/actions/api-keys";

export const metadata: Metadata = { title: "API keys" };
export const dynamic = "force-dynamic";

export default async function ApiKeysPage() {
  const { principal, prisma } = await pageContext();
  const keys = await listApiKeys(principal, {}, prisma);
  return (
    <>
      <SettingsHeader
        title="API keys"
        subtitle={
          <>
            Send a key as <code className="font-mono">Authorization: Bearer &lt;key&gt;</code> to{" "}
            <code className="font-mono">/api/v1/*</code>; trace exporters may also use{" "}
            <code className="font-mono">OTEL_EXPORTER_OTLP_HEADERS=x-api-key=&lt;key&gt;</code>. Only a hash of each key
            is stored.
          </>
        }
      />
      <ApiKeyManager
        keys={keys.map((k) => ({
          id: k.id,
          name: k.name,
          prefix: k.prefix,
          createdAt: k.createdAt.toISOString(),
          lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
          revokedAt: k.revokedAt?.toISOString() ?? null,
          owner: k.user?.email ?? null,
          readOnly: k.readOnly,
        }))}
        createAction={createApiKeyAction}
        revokeAction={revokeApiKeyAction}
      />
    </>
  );
}
