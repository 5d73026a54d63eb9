/** A window of a long list not loaded yet: its estimated height, "Loading steps…", or the reason it failed. */
export function WindowPending({ error, height }: { error: Error | null; height: number }) {
  return (
    <div style={{ height }} className="px-3 py-2 text-sm text-slate-500" aria-busy={error ? undefined : true}>
      {error ? (
        <span role="alert" className="text-rose-700">
          {error.message}
        </span>
      ) : (
        "Loading steps…"
      )}
    </div>
  );
}
