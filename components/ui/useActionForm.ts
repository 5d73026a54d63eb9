"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import type { ActionResult } from "@/lib/http/action";

export type ActionFormError = {
  code: string;
  message: string;
  fields: Record<string, string[]>;
  /** Every problem the server named, with its path (for a form that lists them under the message). */
  issues: { path: string; message: string }[];
};

/**
 * Runs a server action from a form: pending state, the error (a message and
 * the field errors, keyed by path, for `Field`), and a router refresh on
 * success so server-rendered lists show the change.
 */
export function useActionForm({ refresh = true }: { refresh?: boolean } = {}) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [error, setError] = useState<ActionFormError | null>(null);
  function run<T>(action: () => Promise<ActionResult<T>>, onOk?: (data: T) => void) {
    start(async () => {
      const result = await action();
      if (!result.ok) {
        setError({
          code: result.error.code,
          message: result.error.message,
          fields: result.error.fieldErrors,
          issues: result.error.issues,
        });
        return;
      }
      setError(null);
      onOk?.(result.data);
      if (refresh) router.refresh();
    });
  }
  /** A form's submit handler that runs the action in place of the browser's own submission. */
  const onSubmit =
    <T>(action: () => Promise<ActionResult<T>>, onOk?: (data: T) => void) =>
    (event: FormEvent) => {
      event.preventDefault();
      run(action, onOk);
    };
  /** The errors of one field (by its path), for `<Field errors=…>`. */
  const fieldErrors = (path: string): string[] | undefined => error?.fields[path];
  /** The error when no field carries it (show it beside the submit button). */
  const formError = error && Object.keys(error.fields).length === 0 ? error.message : null;
  /** Shows an error found before calling the action (input the browser could already tell is wrong). */
  const fail = (message: string) => setError({ code: "invalid_input", message, fields: {}, issues: [] });
  return { pending, error, formError, fieldErrors, run, onSubmit, fail, reset: () => setError(null) };
}
