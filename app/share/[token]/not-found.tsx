import { Card } from "@/components/ui/Card";

/** The one answer for every token that does not open a report: unknown, malformed, revoked or expired alike. */
export default function ShareNotFound() {
  return (
    <Card as="div" padding="none" className="px-6 py-12 text-center">
      <h1 className="text-base font-semibold text-slate-900">This link does not open a report</h1>
      <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">Ask the person who shared it for a new link.</p>
    </Card>
  );
}
