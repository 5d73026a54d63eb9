import { RecordNotFound } from "@/components/ui/RecordNotFound";

export default function TrialsNotFound() {
  return <RecordNotFound kind="trials" />;
}
