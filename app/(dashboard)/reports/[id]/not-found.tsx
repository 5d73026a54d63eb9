import { RecordNotFound } from "@/components/ui/RecordNotFound";

export default function ReportNotFound() {
  return <RecordNotFound kind="report" />;
}
