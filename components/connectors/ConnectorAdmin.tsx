"use client";

import { useState } from "react";
import type { ConnectorRow } from "@/lib/db/connectors";
import { deleteConnectorAction, editConnectorAction } from "@/lib/actions/connectors";
import { Button } from "@/components/ui/Button";
import { ConfirmButton } from "@/components/ui/ConfirmButton";
import { FormError, GridFields, SubmitRow } from "@/components/ui/FormParts";
import { useActionForm } from "@/components/ui/useActionForm";

/** What the form edits: the connector's row but for who made it and when. */
type Editable = Omit<ConnectorRow, "createdBy" | "createdAt">;

/** Edit (a form of the connector's fields, its kind aside) and Delete (after asking) of one connector; admins only. */
export function ConnectorAdmin({ connector }: { connector: Editable }) {
  const [editing, setEditing] = useState(false);
  const edit = useActionForm();
  const remove = useActionForm();
  const own = connector.kind === "langfuse" ? "publicKey" : "project";
  const initial = {
    name: connector.name,
    baseUrl: connector.baseUrl,
    [own]: (own === "publicKey" ? connector.publicKey : connector.project) ?? "",
    secretKeyEnv: connector.secretKeyEnv,
  };
  const [v, setV] = useState<Record<string, string>>(initial);
  return (
    <div className="mb-4">
      <div className="flex flex-wrap items-start gap-2">
        <Button variant="secondary" size="sm" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          {editing ? "Close edit" : "Edit"}
        </Button>
        <ConfirmButton
          size="sm"
          question={`Delete the connector “${connector.name}”?`}
          details="Its pulls and their schedules go; the sessions they imported stay. A pull under way must be cancelled first."
          confirmLabel="Delete connector"
          pendingLabel="Deleting…"
          pending={remove.pending}
          onConfirm={() => remove.run(() => deleteConnectorAction({ connectorId: connector.id }))}
        >
          Delete…
        </ConfirmButton>
        <FormError error={remove.error} />
      </div>
      {editing ? (
        <form
          aria-label={`Edit ${connector.name}`}
          className="mt-3 grid gap-3 sm:grid-cols-4"
          onSubmit={(e) => {
            e.preventDefault();
            const changed = Object.fromEntries(Object.entries(v).filter(([key, value]) => value !== initial[key]));
            edit.run(
              () => editConnectorAction({ connectorId: connector.id, edit: changed }),
              () => setEditing(false),
            );
          }}
        >
          <GridFields
            fields={[
              ["name", "Name", ""],
              ["baseUrl", "Base URL", ""],
              [own, own === "publicKey" ? "Public key" : "Project", ""],
              ["secretKeyEnv", "Secret's environment variable", ""],
            ]}
            values={v}
            onValues={setV}
            error={edit.error}
          />
          <SubmitRow label="Save changes" pending={edit.pending} error={edit.error} className="sm:col-span-4" />
        </form>
      ) : null}
    </div>
  );
}
