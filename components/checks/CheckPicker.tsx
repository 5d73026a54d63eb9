import Link from "next/link";

export interface CheckChoice {
  id: string;
  name: string;
  kind: string;
}

/** Saved outcome checks to judge runs by, as checkboxes; with none saved, says where to make one. */
export function CheckPicker({
  checks,
  selected,
  onChange,
  legend,
}: {
  checks: readonly CheckChoice[];
  selected: readonly string[];
  onChange: (ids: string[]) => void;
  legend: string;
}) {
  if (checks.length === 0)
    return (
      <p className="mt-2 text-sm text-slate-600" data-testid="no-checks">
        No saved checks yet. A check says whether a run ended the way it should (its answer, the tools it called, its
        cost).{" "}
        <Link href="/checks" className="font-medium text-indigo-700 underline">
          Save one on the checks page
        </Link>{" "}
        to judge the base run and the branch by it.
      </p>
    );
  return (
    <fieldset className="mt-2 space-y-1 text-sm">
      <legend className="text-slate-600">{legend}</legend>
      {checks.map((c) => (
        <label key={c.id} className="flex items-center gap-2">
          <input
            type="checkbox"
            checked={selected.includes(c.id)}
            onChange={(e) => onChange(e.target.checked ? [...selected, c.id] : selected.filter((x) => x !== c.id))}
          />
          {c.name} <span className="text-xs text-slate-600">({c.kind.replaceAll("_", " ")})</span>
        </label>
      ))}
    </fieldset>
  );
}
