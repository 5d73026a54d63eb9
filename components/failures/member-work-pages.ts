/**
 * Where one list of a cluster's member work (its blame searches, or its reports) stands on a page: what the pager
 * says and which pages it links to; null when every row is on the first page.
 */
export function memberWorkPager(
  noun: string,
  at: { page: number; pageSize: number; shown: number; total: number },
): { text: string; newer: number | null; older: number | null } | null {
  const { page, pageSize, shown, total } = at;
  if (total <= pageSize && page === 1) return null;
  const from = (page - 1) * pageSize + 1;
  const last = Math.max(1, Math.ceil(total / pageSize));
  return {
    text:
      shown > 0
        ? `${noun} ${from}–${from + shown - 1} of ${total}`
        : `No ${noun.toLowerCase()} on this page; ${total} in all`,
    newer: page > 1 ? Math.min(page - 1, last) : null,
    older: page < last ? page + 1 : null,
  };
}
