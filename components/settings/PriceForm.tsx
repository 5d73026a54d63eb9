"use client";

import { useState } from "react";
import { addPriceAction } from "@/lib/actions/prices";
import { Button } from "@/components/ui/Button";
import { gridInputClass as input } from "@/components/ui/FormParts";
import { useActionForm } from "@/components/ui/useActionForm";

const EMPTY = { model: "", match: "prefix", validFrom: "", input: "", output: "", cached: "", cacheWrite: "" };

/** Adds a version of a price (admins): dollars per million tokens, from a date; the old version stays. */
export function PriceForm({ today }: { today: string }) {
  const { pending, error, formError, fieldErrors, run } = useActionForm();
  const [v, setV] = useState({ ...EMPTY, validFrom: today });
  const [done, setDone] = useState<string | null>(null);
  const field = (key: keyof typeof EMPTY, label: string, placeholder: string, hint?: string) => (
    <label className="text-sm">
      <span className="text-slate-600">{label}</span>
      <input
        name={key}
        value={v[key]}
        placeholder={placeholder}
        inputMode={key === "model" || key === "validFrom" ? undefined : "decimal"}
        aria-invalid={fieldErrors(key) ? true : undefined}
        onChange={(e) => setV({ ...v, [key]: e.target.value })}
        className={input}
      />
      {hint ? <span className="mt-0.5 block text-xs text-slate-500">{hint}</span> : null}
      {fieldErrors(key) ? (
        <span className="mt-0.5 block text-xs text-rose-700">{fieldErrors(key)!.join(" ")}</span>
      ) : null}
    </label>
  );
  return (
    <form
      aria-label="Add a price"
      className="grid gap-3 sm:grid-cols-3 lg:grid-cols-7"
      onSubmit={(e) => {
        e.preventDefault();
        setDone(null);
        run(
          () => addPriceAction(v),
          (added) => {
            setDone(
              `Added ${added.price.model} from ${added.price.validFrom.slice(0, 10)}; ${added.sessionsRepriced} session${added.sessionsRepriced === 1 ? "" : "s"} priced again.`,
            );
            setV({ ...EMPTY, validFrom: today });
          },
        );
      }}
    >
      {field("model", "Model", "gpt-4.1", "Matches dated variants too (gpt-4.1-2025-04-14).")}
      <label className="text-sm">
        <span className="text-slate-600">Match</span>
        <select name="match" value={v.match} onChange={(e) => setV({ ...v, match: e.target.value })} className={input}>
          <option value="prefix">name and its variants</option>
          <option value="exact">this exact name</option>
        </select>
        {fieldErrors("match") ? (
          <span className="mt-0.5 block text-xs text-rose-700">{fieldErrors("match")!.join(" ")}</span>
        ) : null}
      </label>
      {field("validFrom", "Valid from", "2025-06-10", "Sessions started on or after this day (UTC).")}
      {field("input", "Input $ / M tokens", "2.00")}
      {field("output", "Output $ / M tokens", "8.00")}
      {field("cached", "Cached input $ / M (optional)", "0.50")}
      {field("cacheWrite", "Cache write $ / M (optional)", "3.75")}
      <div className="sm:col-span-3 lg:col-span-7">
        <Button type="submit" disabled={pending}>
          Add this price
        </Button>
        {formError ? (
          <span role="alert" className="ml-3 text-sm text-rose-700">
            {formError}
          </span>
        ) : error ? (
          <span role="alert" className="ml-3 text-sm text-rose-700">
            {error.message}
          </span>
        ) : done ? (
          <span role="status" className="ml-3 text-sm text-emerald-700">
            {done}
          </span>
        ) : null}
      </div>
    </form>
  );
}
