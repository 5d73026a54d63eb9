import { RecordNotFound } from "@/components/ui/RecordNotFound";

export default function DatasetNotFound() {
  return <RecordNotFound kind="dataset" />;
}
