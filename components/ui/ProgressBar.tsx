/** A thin bar of `value` done out of `max`, announced to screen readers under `label`. */
export function ProgressBar({ label, value, max }: { label: string; value: number; max: number }) {
  const percent = max <= 0 ? 0 : Math.min(100, Math.round((value / max) * 100));
  return (
    <div
      className="mt-2 h-2 overflow-hidden rounded-full bg-indigo-100"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-valuenow={value}
    >
      <div className="h-full rounded-full bg-indigo-600 transition-all" style={{ width: `${percent}%` }} />
    </div>
  );
}
