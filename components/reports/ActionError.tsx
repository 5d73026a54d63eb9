/** What went wrong with the report action just tried (saving, publishing, sharing), read out as it appears. */
export function ActionError({ error }: { error: { message: string } | null | undefined }) {
  return error ? (
    <p role="alert" className="mt-2 text-sm text-rose-700">
      {error.message}
    </p>
  ) : null;
}
