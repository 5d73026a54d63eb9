/**
 * A refused playground run in the page's words: what kind of failure it was (the title) and the server's own
 * message, with the fields it names. The kind comes from the error's code and, for the executors' refusals,
 * the code they put in the issue on `endpointId`.
 */
export type RunFailure = { title: string; message: string; details: string[] };

type ServerError = { code: string; message: string; issues: { path: string; message: string }[] };

const EXECUTOR_TITLES: Record<string, string> = {
  host_not_allowed: "Not allowed: the endpoint's host is not on the allow-list",
  key_missing: "Not allowed: the endpoint's key is not available",
  no_endpoint: "No model endpoint to send it to",
  bad_url: "The endpoint's address is not usable",
  http_error: "The endpoint refused the call",
  bad_response: "The endpoint's answer could not be read",
  timeout: "The endpoint did not answer in time",
};

export function runFailure(error: ServerError): RunFailure {
  const executor = error.issues.find((i) => i.path === "endpointId" && i.message in EXECUTOR_TITLES);
  if (executor) return { title: EXECUTOR_TITLES[executor.message]!, message: error.message, details: [] };
  const details = error.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  if (error.code === "forbidden") return { title: "Not allowed", message: error.message, details };
  if (error.code === "invalid_input") return { title: "The request was not sent", message: error.message, details };
  if (error.code === "not_found") return { title: "Not found", message: error.message, details };
  return { title: "The run failed", message: error.message, details };
}
