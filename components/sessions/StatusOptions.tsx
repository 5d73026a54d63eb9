/** The ways a session can end, as the session filters (browser and experiment cohort) offer them. */
const SESSION_STATUSES = ["completed", "failed", "incomplete"] as const;

/** One <option> per session status, after the filter's own "any" option. */
export function StatusOptions() {
  return SESSION_STATUSES.map((status) => (
    <option key={status} value={status}>
      {status}
    </option>
  ));
}
