import { route } from "@/lib/http/route";
import { replayDocumentAnswer } from "@/lib/http/replay-answer";
import { ReplayDocumentQuery } from "@/lib/server/replays/replay-documents";

export const dynamic = "force-dynamic";

/**
 * One replay with its steps in order: `{ replay: { ..., steps, ... } }`.
 * `?steps=none`: its summary for polling (status, progress, `stepCount` in place of `steps`, evidence,
 * pending, fixtures, approvals, the counterfactual), no step read.
 * `?inputs=delta`: each model call's input holds only the messages it adds,
 * and `inputPrefix: { seq, count }` says they follow the first `count`
 * messages of step `seq`'s full input.
 *
 * Streamed as GET /api/v1/sessions/:id is: the steps are read a window at a
 * time and written as they are read (see lib/http/stream.ts for a failure
 * after the first byte: a run that stores its steps meanwhile cuts the body).
 * The counterfactual (fork, verdicts, trial set) is read after the replay's stamp.
 */
export const GET = route<{ id: string }, typeof ReplayDocumentQuery>(
  { accept: ["api_key"], query: ReplayDocumentQuery },
  async ({ query: { inputs, steps }, prisma, params, principal }) => {
    return replayDocumentAnswer(principal, prisma, params.id, {
      inputs,
      steps,
      where: `GET /api/v1/replays/${params.id}`,
    });
  },
);
