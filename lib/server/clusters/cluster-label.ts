/**
 * A label for a failure cluster suggested by a model: the cluster's signature and a few of its members' error
 * messages, quoted (lib/clusters/label.ts), sent to a configured model endpoint through the live executors' own
 * code (the allow-list, the key variables, the outbound guard), the endpoint chosen as the playground chooses it.
 * Nothing is stored: the analyst reads the prompt and the model, and accepting the label is a rename.
 */
import { z } from "zod";
import { clusterLabelPrompt, LABEL_EXAMPLES, LABEL_FIELD_CHARS, labelFromAnswer } from "@/lib/clusters/label";
import type { Db } from "@/lib/db";
import { listModelEndpoints } from "@/lib/db/checks";
import { clusterIsDemo } from "@/lib/db/cluster-members";
import { clusterById, clusterErrorExamples } from "@/lib/db/clusters";
import { AppError, notFound } from "@/lib/errors";
import { executorRefusal, modelEndpointChoices } from "@/lib/executors/endpoint-choices";
import { ExecutorError, modelExecutor, MODEL_TIMEOUT_MS } from "@/lib/executors/live";
import { authorize } from "../authz";
import { resolveModelEndpoint } from "../checks/counterfactual";
import type { Principal } from "../principal";

const Id = z.string().min(1).max(64);

export const ClusterLabelRef = z.strictObject({ clusterId: Id });
export type ClusterLabelRef = z.infer<typeof ClusterLabelRef>;

/**
 * The model endpoints a label may be asked of, with whether their host is on the allow-list: the ones the
 * playground offers for the same data (the demo model too when every member is a demo session).
 */
export async function clusterLabelEndpoints(principal: Principal, input: ClusterLabelRef, prisma: Db) {
  authorize(principal, "clusters.write");
  return modelEndpointChoices(prisma, { demo: await clusterIsDemo(prisma, input.clusterId) });
}

export const SuggestClusterLabelInput = z.strictObject({
  clusterId: Id,
  /** A model endpoint's id or name; by default the only one configured. */
  endpointId: z.string().trim().min(1).max(200).optional(),
});
export type SuggestClusterLabelInput = z.infer<typeof SuggestClusterLabelInput>;

/** Asks the model for a label; answers the label, the prompt sent and the endpoint and model that answered. */
export async function suggestClusterLabel(
  principal: Principal,
  input: SuggestClusterLabelInput,
  prisma: Db,
  deps: { timeoutMs?: number } = {},
) {
  authorize(principal, "clusters.write");
  const cluster = await clusterById(prisma, input.clusterId);
  if (!cluster) throw notFound("cluster", input.clusterId, "clusterId");
  // A demo cluster may use the demo model, as the playground's demo sessions do (by default when none is configured).
  const demo = await clusterIsDemo(prisma, cluster.id);
  const endpoint = await resolveModelEndpoint(prisma, input.endpointId, undefined, { demo });
  if (!endpoint)
    throw new AppError(
      "executor_missing",
      (await listModelEndpoints(prisma)).length === 0
        ? "No model endpoint is configured (Settings → Executors); an administrator adds one."
        : "Several model endpoints are configured: choose one.",
      [{ path: "endpointId", message: "no_endpoint" }],
    );
  const examples = await clusterErrorExamples(prisma, cluster.id, LABEL_EXAMPLES, LABEL_FIELD_CHARS + 1);
  const prompt = clusterLabelPrompt(
    { check: cluster.check, step: cluster.step, errorType: cluster.errorType, message: cluster.message },
    cluster.size,
    examples.map((e) => e.message),
  );
  const answer = await modelExecutor(prisma, undefined, endpoint.id, { timeoutMs: deps.timeoutMs ?? MODEL_TIMEOUT_MS })(
    { modelStep: 0, step: 0, messages: prompt, model: undefined, temperature: 0, tools: undefined, recorded: null },
  ).catch((error: unknown) => {
    throw error instanceof ExecutorError ? executorRefusal(error) : error;
  });
  const label = labelFromAnswer(answer.output.content);
  const model = answer.model ?? endpoint.name;
  if (label === null)
    throw new AppError("run_failed", `${model} answered no label; ask again or name the cluster yourself.`, [
      { path: "endpointId", message: "no label in the answer" },
    ]);
  return { clusterId: cluster.id, label, prompt, endpoint: { id: endpoint.id, name: endpoint.name }, model };
}
export type ClusterLabelSuggestion = Awaited<ReturnType<typeof suggestClusterLabel>>;
