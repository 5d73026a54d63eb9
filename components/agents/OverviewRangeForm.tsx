import { Button } from "@/components/ui/Button";
import { inputClass } from "@/components/ui/Field";

const LABEL = "flex flex-col gap-1 text-xs font-medium text-slate-700";

/** The days and the version the overview reads: a plain GET form, so the URL says what is shown. */
export function OverviewRangeForm({
  from,
  to,
  version,
  versions,
}: {
  from: string;
  to: string;
  version: string | null;
  versions: readonly string[];
}) {
  return (
    <form method="get" className="mb-4 flex flex-wrap items-end gap-3" aria-label="Days and version shown">
      <label className={LABEL}>
        First day (UTC)
        <input name="from" type="date" defaultValue={from} className={inputClass} />
      </label>
      <label className={LABEL}>
        Last day (UTC)
        <input name="to" type="date" defaultValue={to} className={inputClass} />
      </label>
      <label className={LABEL}>
        Version
        <select name="version" defaultValue={version ?? ""} className={inputClass}>
          <option value="">Every version</option>
          {versions.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </label>
      <Button type="submit" variant="secondary">
        Show
      </Button>
    </form>
  );
}
