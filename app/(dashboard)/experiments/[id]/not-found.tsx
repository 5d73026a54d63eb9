import { RecordNotFound } from "@/components/ui/RecordNotFound";

export default function ExperimentNotFound() {
  return <RecordNotFound kind="experiment" />;
}
