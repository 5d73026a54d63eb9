import type { SessionCost } from "@/lib/server/prices/prices";
import { formatTokens } from "@/lib/format";

/**
 * Under a session's figures: where its cost comes from when the price table worked it out (each model, the
 * price it took, from when) or could not (models with tokens and no price).
 */
export function CostBasis({ cost }: { cost: SessionCost }) {
  if (cost.source !== "price_table" && cost.source !== "none") return null;
  const priced = cost.models.filter((m) => m.price);
  const unpriced = cost.models.filter((m) => !m.price);
  if (priced.length === 0 && unpriced.length === 0) return null;
  return (
    <p className="-mt-4 mb-6 text-xs text-slate-600" data-testid="cost-basis">
      {priced.length > 0 ? (
        <>
          Cost estimated from the price table (the source recorded none):{" "}
          {priced.map((m, i) => (
            <span key={m.model}>
              {i > 0 ? "; " : null}
              <span className="font-mono">{m.model}</span>
              {m.price!.model !== m.model ? (
                <>
                  {" "}
                  as <span className="font-mono">{m.price!.model}</span>
                </>
              ) : null}
              , {m.price!.inputUsdPerMTok} / {m.price!.outputUsdPerMTok} per M tokens in / out, valid from{" "}
              {m.price!.validFrom.slice(0, 10)} ({formatTokens(m.inputTokens)} in
              {m.cachedInputTokens > 0
                ? ` (${formatTokens(m.cachedInputTokens)} of them from the prompt cache, at ${
                    m.price!.cachedInputUsdPerMTok ?? m.price!.inputUsdPerMTok
                  } per M)`
                : null}
              {m.cacheWriteInputTokens > 0
                ? ` (${formatTokens(m.cacheWriteInputTokens)} of them written to the prompt cache, at ${
                    m.price!.cacheWriteInputUsdPerMTok ?? m.price!.inputUsdPerMTok
                  } per M)`
                : null}
              , {formatTokens(m.outputTokens)} out)
            </span>
          ))}
          .{" "}
        </>
      ) : null}
      {unpriced.length > 0 ? (
        <>
          No price for {unpriced.map((m) => m.model).join(", ")}: {unpriced.length === 1 ? "its" : "their"} tokens are
          not counted (admins add prices in Settings → Prices).
        </>
      ) : null}
    </p>
  );
}
