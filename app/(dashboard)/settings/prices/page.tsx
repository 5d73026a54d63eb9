import type { Metadata } from "next";
import { PriceForm } from "@/components/settings/PriceForm";
import { Badge } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { SettingsHeader } from "@/components/settings/SettingsHeader";
import { pageContext } from "@/lib/http/page";
import { can } from "@/lib/server/authz";
import { listPrices } from "@/lib/server/prices/prices";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Prices" };

export default async function PricesPage() {
  const { principal, prisma } = await pageContext();
  const prices = await listPrices(principal, prisma);
  // The version in force today of each rule: the first of its rows (newest first) that has started.
  const now = new Date().toISOString();
  const current = new Set<string>();
  const seen = new Set<string>();
  for (const p of prices) {
    const rule = `${p.model}\u0000${p.match}`;
    if (!seen.has(rule) && p.validFrom <= now) {
      seen.add(rule);
      current.add(p.id);
    }
  }
  return (
    <>
      <SettingsHeader
        title="Prices"
        subtitle="List prices per million tokens that turn a session's recorded tokens into an estimated cost when its source gave no cost. A source's own cost is always kept."
      />
      <div className="space-y-6">
        {can(principal, "prices.manage") ? (
          <Card padding="lg">
            <h2 className="text-base font-semibold text-slate-900">Add a price</h2>
            <p className="mb-4 text-sm text-slate-600">
              A new version never changes an old one: sessions that started before its date keep the price they had;
              those on or after it are priced again. The most specific name wins (an exact name before the longest
              prefix).
            </p>
            <PriceForm today={now.slice(0, 10)} />
          </Card>
        ) : (
          <p className="text-sm text-slate-600">Only admins add prices; you can read them.</p>
        )}
        <Card padding="lg">
          <h2 className="text-base font-semibold text-slate-900">Price table</h2>
          <p className="mb-4 text-sm text-slate-600">
            The prices Branchpoint ships are providers&apos; public list prices as of November 2025, written down by
            hand: check them against the providers&apos; pages and add a version where they differ. Tokens read from a
            prompt cache take the cached price, tokens written to it the cache-write price; where a price has none, they
            are priced as input.
          </p>
          {prices.length === 0 ? (
            <p className="text-sm text-slate-500">
              No prices: imported sessions without a cost of their own show none.
            </p>
          ) : (
            <DataTable
              frame={false}
              dense
              label="Prices"
              columns={[
                "Model",
                "Match",
                "Valid from",
                numberColumn("Input $/M"),
                numberColumn("Output $/M"),
                numberColumn("Cached $/M"),
                numberColumn("Cache write $/M"),
                { label: "Added by", className: "pl-6" },
              ]}
            >
              {prices.map((p) => (
                <tr key={p.id} className="border-t border-slate-100" data-testid="price-row">
                  <td className="py-1.5 font-mono text-xs">
                    {p.model} {current.has(p.id) ? <Badge tone="good">in force</Badge> : null}
                  </td>
                  <td className="text-xs">{p.match === "exact" ? "exact name" : "name and variants"}</td>
                  <td className="text-xs tabular-nums">{p.validFrom.slice(0, 10)}</td>
                  <td className="text-right tabular-nums">{p.inputUsdPerMTok}</td>
                  <td className="text-right tabular-nums">{p.outputUsdPerMTok}</td>
                  <td className="text-right tabular-nums">{p.cachedInputUsdPerMTok ?? "—"}</td>
                  <td className="text-right tabular-nums">{p.cacheWriteInputUsdPerMTok ?? "—"}</td>
                  <td className="pl-6 text-xs text-slate-600">
                    {p.origin === "default" ? "shipped list price" : (p.createdBy ?? "admin")}
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </Card>
      </div>
    </>
  );
}
