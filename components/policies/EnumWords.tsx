import type { Words } from "@/lib/policies/labels";

/** A value as the JSON document spells it, small, for people who write the document by hand. */
export function RawValue({ value }: { value: string }) {
  return (
    <code className="rounded bg-slate-100 px-1 py-px font-mono text-[11px] font-normal text-slate-600" data-raw-value>
      {value}
    </code>
  );
}

/** The line under a choice: what the chosen value does, and its raw value. */
export function ChoiceHelp({ words, value, testId }: { words: Words; value: string; testId?: string }) {
  return (
    <span className="mt-1 block font-normal text-slate-500" data-testid={testId}>
      {words.help} <RawValue value={value} />
    </span>
  );
}

/** A value in running text: its label, then its raw value. */
export function ValueWords({ words, value }: { words: Words; value: string }) {
  return (
    <span title={words.help}>
      {words.label} <RawValue value={value} />
    </span>
  );
}
